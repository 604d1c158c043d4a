/** A project's test center: its profiles by origin, upload, the editor, and the TRACER and SENSEI runs. */
import { Alert, Anchor, Badge, Button, Card, CloseButton, Group, Stack, Text, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useDeleteProfiles, useProfiles } from "../../api/workspace/profiles";
import { profileKeys } from "../../api/query-keys";
import { useProject } from "../../api/workspace/projects";
import type { Run } from "../../api/runs/runs";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { PageHeader } from "../../components/PageHeader";
import { PublicLinkCard } from "../../components/PublicLink";
import { RunProgress } from "../../components/RunProgress";
import { EmptyState, ErrorState, LoadingState, QueryStates } from "../../components/StateViews";
import { paths } from "../../lib/paths";
import { counted, textOr } from "../../lib/text";
import { groupProfiles, ProfileGroupTable } from "./ProfileGroups";
import { ProfileUpload } from "./ProfileUpload";
import { ProjectArchive } from "./ProjectArchive";
import { runSetupProblem, SenseiDialog, TracerDialog } from "./StartRunDialogs";

type Dialog = { kind: "tracer" | "sensei"; runId: number | null } | null;

export function TestCenterPage() {
  const params = useParams();
  const projectId = Number(params.projectId);
  const project = useProject(projectId, Number.isInteger(projectId));
  const profiles = useProfiles(projectId);
  const deleteProfiles = useDeleteProfiles();
  const queryClient = useQueryClient();
  const [searchParams, setSearchParams] = useSearchParams();
  const followedRun = Number(searchParams.get("run")) || null;
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  useDocumentTitle(`${project.data?.name ?? "Test center"} · Parley`);

  const groups = useMemo(() => groupProfiles(profiles.data ?? []), [profiles.data]);
  const selectedProfiles = (profiles.data ?? []).filter((p) => selected.has(p.id) && p.valid);

  const toggle = (ids: number[], on: boolean) => {
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  };

  const follow = (run: Run) => {
    setDialog((current) => (current === null ? current : { ...current, runId: run.id }));
    setSearchParams({ run: String(run.id) }, { replace: true });
  };

  // TRACER writes profiles: show them as soon as its run has finished.
  const onRunFinished = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: profileKeys.all(projectId) });
  }, [queryClient, projectId]);

  const notFound = { what: "project", backTo: paths.projects, backLabel: "Back to your projects" };
  if (!Number.isInteger(projectId))
    return <ErrorState error={null} title="There is no such project" notFound={notFound} />;
  if (!project.isSuccess) return <QueryStates query={project} what="the project" notFound={notFound} />;

  const readOnly = !project.data.is_owner;
  const setupProblem = runSetupProblem(project.data);

  return (
    <Stack gap="lg" maw={1200}>
      <PageHeader
        title={project.data.name}
        description={
          <>
            Test center · profile model {textOr(project.data.profile_model, "default")} · exploration model{" "}
            {textOr(project.data.exploration_model, "default")}
            {project.data.public && (
              <Badge ml="xs" size="xs" color="grape" variant="light">
                public
              </Badge>
            )}
          </>
        }
        actions={
          readOnly ? undefined : (
            <>
              <Button variant="default" component={Link} to={paths.editProject(projectId)}>
                Edit project
              </Button>
              <Button
                variant="light"
                onClick={() => {
                  setDialog({ kind: "tracer", runId: null });
                }}
              >
                Explore with TRACER
              </Button>
              <Button variant="default" component={Link} to={paths.transcripts(projectId)}>
                Transcripts
              </Button>
              <Button component={Link} to={paths.newProfile(projectId)}>
                New profile
              </Button>
            </>
          )
        }
      />

      {setupProblem && !readOnly && (
        <Alert color="yellow" title="Runs cannot start yet" role="status">
          <Text size="sm">
            {setupProblem}{" "}
            <Anchor component={Link} to={paths.editProject(projectId)} size="sm" fw={600}>
              Open the project's settings
            </Anchor>
          </Text>
        </Alert>
      )}

      {project.data.public && !readOnly && <PublicLinkCard projectId={projectId} />}

      {followedRun !== null && (
        <Stack gap={4}>
          <Group justify="flex-end">
            <CloseButton
              aria-label="Hide run progress"
              onClick={() => {
                setSearchParams({}, { replace: true });
              }}
            />
          </Group>
          <RunProgress runId={followedRun} onFinished={onRunFinished} linkToRunPage />
        </Stack>
      )}

      {!readOnly && <ProfileUpload projectId={projectId} />}

      <Card withBorder padding="md" component="section" aria-labelledby="profiles-title">
        <Stack gap="md">
          <Group justify="space-between" wrap="wrap">
            <Title order={2} size="h4" id="profiles-title">
              Profiles
            </Title>
            {!readOnly && (
              <Group gap="xs">
                <Text size="sm" c="dimmed" aria-live="polite">
                  {selectedProfiles.length} selected
                </Text>
                <Button
                  size="xs"
                  variant="subtle"
                  color="red"
                  disabled={selected.size === 0}
                  onClick={() => {
                    setConfirmDelete(true);
                  }}
                >
                  Delete selected
                </Button>
                <Button
                  size="xs"
                  disabled={selectedProfiles.length === 0}
                  onClick={() => {
                    setDialog({ kind: "sensei", runId: null });
                  }}
                >
                  Run SENSEI
                </Button>
              </Group>
            )}
          </Group>
          {profiles.isPending ? (
            <LoadingState label="Loading profiles" />
          ) : profiles.isError ? (
            <ErrorState
              error={profiles.error}
              title="Could not load the profiles"
              onRetry={() => void profiles.refetch()}
            />
          ) : profiles.data.length === 0 ? (
            <EmptyState
              title="No profiles yet"
              action={
                readOnly ? undefined : (
                  <Group gap="xs">
                    <Button size="xs" component={Link} to={paths.newProfile(projectId)}>
                      Write a profile
                    </Button>
                    <Button
                      size="xs"
                      variant="light"
                      onClick={() => {
                        setDialog({ kind: "tracer", runId: null });
                      }}
                    >
                      Explore with TRACER
                    </Button>
                  </Group>
                )
              }
            >
              A profile describes a simulated user: who they are, what they want and what the chatbot should answer.
              Write one, drop YAML files above, or let TRACER explore the chatbot and write them for you.
            </EmptyState>
          ) : (
            groups
              .filter((group) => group.key === "manual" || group.profiles.length > 0)
              .map((group) => (
                <ProfileGroupTable
                  key={group.key}
                  projectId={projectId}
                  group={group}
                  selected={selected}
                  onToggle={toggle}
                />
              ))
          )}
        </Stack>
      </Card>

      <ProjectArchive projectId={projectId} readOnly={readOnly} />

      <TracerDialog
        project={project.data}
        opened={dialog?.kind === "tracer"}
        runId={dialog?.kind === "tracer" ? dialog.runId : null}
        onClose={() => {
          setDialog(null);
        }}
        onStarted={follow}
        onFinished={onRunFinished}
      />
      <SenseiDialog
        project={project.data}
        opened={dialog?.kind === "sensei"}
        runId={dialog?.kind === "sensei" ? dialog.runId : null}
        profiles={selectedProfiles}
        onClose={() => {
          setDialog(null);
        }}
        onStarted={follow}
      />
      <ConfirmDialog
        opened={confirmDelete}
        title={`Delete ${counted(selected.size, "profile")}?`}
        confirmLabel="Delete"
        loading={deleteProfiles.isPending}
        error={deleteProfiles.error}
        onClose={() => {
          setConfirmDelete(false);
          deleteProfiles.reset();
        }}
        onConfirm={() => {
          deleteProfiles.mutate(
            { projectId, ids: [...selected] },
            {
              onSuccess: () => {
                setSelected(new Set());
                setConfirmDelete(false);
              },
            },
          );
        }}
      >
        Runs that already used them keep their copies. This cannot be undone.
      </ConfirmDialog>
    </Stack>
  );
}
