/** A project's profiles, grouped by origin: written or uploaded by hand, then one group per TRACER run. */
import { Anchor, Badge, Checkbox, Group, Stack, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import type { Profile } from "../../api/workspace/profiles";
import { paths } from "../../lib/paths";
import { counted, textOr } from "../../lib/text";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export interface ProfileGroup {
  key: string;
  title: string;
  profiles: Profile[];
}

export function groupProfiles(profiles: readonly Profile[]): ProfileGroup[] {
  const manual = profiles.filter((p) => p.origin !== "tracer" || p.source_run === null);
  const byRun = new Map<number, Profile[]>();
  for (const profile of profiles) {
    if (profile.origin === "tracer" && profile.source_run !== null) {
      const list = byRun.get(profile.source_run) ?? [];
      list.push(profile);
      byRun.set(profile.source_run, list);
    }
  }
  const groups: ProfileGroup[] = [{ key: "manual", title: "Written and uploaded", profiles: manual }];
  for (const runId of [...byRun.keys()].sort((a, b) => b - a)) {
    groups.push({
      key: `run-${String(runId)}`,
      title: `From TRACER run #${String(runId)}`,
      profiles: byRun.get(runId) ?? [],
    });
  }
  return groups;
}

interface ProfileGroupTableProps {
  projectId: number;
  group: ProfileGroup;
  selected: ReadonlySet<number>;
  onToggle: (ids: number[], on: boolean) => void;
}

export function ProfileGroupTable({ projectId, group, selected, onToggle }: ProfileGroupTableProps) {
  const runnable = group.profiles.filter((p) => p.valid).map((p) => p.id);
  const chosen = runnable.filter((id) => selected.has(id)).length;
  const titleId = `profile-group-${group.key}`;
  return (
    <Stack gap="xs" component="section" aria-labelledby={titleId}>
      <Group gap="sm">
        <Title order={3} size="h5" id={titleId}>
          {group.title}
        </Title>
        <Badge variant="light" color="gray">
          {group.profiles.length}
        </Badge>
      </Group>
      {group.profiles.length === 0 ? (
        <Text size="sm" c="dimmed">
          None yet: write a profile, upload YAML files, or explore with TRACER.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing={6} highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>
                  <Checkbox
                    aria-label={`Select all valid profiles in ${group.title}`}
                    checked={runnable.length > 0 && chosen === runnable.length}
                    indeterminate={chosen > 0 && chosen < runnable.length}
                    disabled={runnable.length === 0}
                    onChange={(event) => {
                      onToggle(runnable, event.currentTarget.checked);
                    }}
                  />
                </Table.Th>
                <Table.Th>Profile</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {group.profiles.map((profile) => {
                const errors = profile.problems.filter((p) => p.severity === "error").length;
                return (
                  <Table.Tr key={profile.id}>
                    <Table.Td>
                      <Checkbox
                        aria-label={`Select ${profile.name ?? "profile"}`}
                        checked={selected.has(profile.id)}
                        disabled={!profile.valid}
                        title={profile.valid ? undefined : "Fix its errors to run it"}
                        onChange={(event) => {
                          onToggle([profile.id], event.currentTarget.checked);
                        }}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Anchor component={Link} to={paths.profile(projectId, profile.id)} fw={500}>
                        {textOr(profile.name, "untitled")}
                      </Anchor>
                      {profile.derived_from !== null && (
                        <Text size="xs" c="dimmed">
                          edited copy of a TRACER profile
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        <Badge color={profile.valid ? "teal" : "red"} variant="light">
                          {profile.valid ? "valid" : counted(errors, "error")}
                        </Badge>
                        {profile.warnings > 0 && (
                          <Badge color="yellow" variant="light">
                            {counted(profile.warnings, "warning")}
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {dateTime.format(new Date(profile.updated_at))}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
