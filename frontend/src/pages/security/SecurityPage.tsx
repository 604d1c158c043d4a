/**
 * Security campaigns of a project: the campaign documents (YAML editor with schema completion), starting one,
 * and the project's campaign runs with their breaches.
 */
import { Alert, Anchor, Badge, Button, Group, Select, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { readRunProgress } from "../../api/project-runs";
import { useAllProjects } from "../../api/projects";
import { isRunActive, type Run } from "../../api/runs";
import {
  type Campaign,
  useCampaigns,
  useCampaignTemplate,
  useDeleteCampaign,
  useSecurityRuns,
} from "../../api/security";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ListPage } from "../../components/ListPage";
import { ResourceTable, useDeleteConfirmation } from "../../components/ResourceTable";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { counted } from "../../lib/text";
import { formatDate } from "../dashboards/format";
import { RunStatusBadge } from "../dashboards/RunStatusBadge";
import { CampaignEditor } from "./CampaignEditor";
import { securityPaths } from "./security-paths";
import { StartCampaignDialog } from "./StartCampaignDialog";

type Editing = { campaign: Campaign } | { campaign: null } | null;

const nameOf = (campaign: Campaign) => campaign.name ?? `campaign ${String(campaign.id)}`;

function CampaignList({
  projectId,
  editing,
  onEdit,
  onStart,
}: {
  projectId: number;
  editing: boolean;
  onEdit: (campaign: Campaign) => void;
  onStart: (campaign: Campaign) => void;
}) {
  const campaigns = useCampaigns(projectId);
  const deletion = useDeleteConfirmation(useDeleteCampaign(), (campaign: Campaign) => ({
    projectId,
    id: campaign.id,
  }));
  return (
    <>
      <ResourceTable
        query={campaigns}
        plural="campaigns"
        errorTitle="Could not load the campaigns"
        empty={
          editing ? null : (
            <EmptyState title="No campaign yet">
              A campaign lists attacks on the chatbot — asking for its instructions, jailbreaks, hidden instructions in
              Base64 — and how to tell whether it gave in.
            </EmptyState>
          )
        }
        label="Campaigns"
        columns={["Campaign", "Valid", "Updated"]}
        minWidth={600}
        cells={(campaign) => (
          <>
            <Table.Td fw={500}>{nameOf(campaign)}</Table.Td>
            <Table.Td>
              <Badge color={campaign.valid ? "teal" : "red"} variant="light">
                {campaign.valid
                  ? "valid"
                  : counted(campaign.problems.filter((p) => p.severity === "error").length, "error")}
              </Badge>
            </Table.Td>
            <Table.Td>{formatDate(campaign.updated_at)}</Table.Td>
          </>
        )}
        deleteRow={{ name: nameOf, ask: deletion.ask }}
        actions={(campaign) => (
          <>
            <Button
              size="xs"
              variant="light"
              aria-label={`Edit ${nameOf(campaign)}`}
              onClick={() => {
                onEdit(campaign);
              }}
            >
              Edit
            </Button>
            <Button
              size="xs"
              aria-label={`Run ${nameOf(campaign)}`}
              disabled={!campaign.valid}
              title={campaign.valid ? undefined : "Fix the campaign's errors first."}
              onClick={() => {
                onStart(campaign);
              }}
            >
              Run
            </Button>
          </>
        )}
      />
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete ${deletion.target ? nameOf(deletion.target) : "this campaign"}?`}
        confirmLabel="Delete campaign"
      >
        Past campaign runs keep their copy of the campaign.
      </ConfirmDialog>
    </>
  );
}

function campaignName(run: Run): string {
  const params = run.params as Record<string, unknown> | null;
  const campaign = params?.campaign as Record<string, unknown> | undefined;
  return typeof campaign?.name === "string" ? campaign.name : "—";
}

function breaches(run: Run): string {
  const counters = run.counters as Record<string, unknown> | null;
  const found = counters?.breached;
  const done = typeof found === "number" ? found : 0;
  return isRunActive(run.status) || run.status === "succeeded" || done > 0 ? String(done) : "—";
}

function CampaignRuns({ projectId }: { projectId: number }) {
  const runs = useSecurityRuns(projectId);
  return (
    <ResourceTable
      query={runs}
      plural="campaign runs"
      errorTitle="Could not load the campaign runs"
      empty={<Text c="dimmed">No campaign has run yet.</Text>}
      label="Campaign runs"
      columns={["Run", "Campaign", "Status", "Breaches", "Attempts", "Created"]}
      minWidth={720}
      cells={(run) => (
        <>
          <Table.Td>
            <Anchor component={Link} to={securityPaths.run(run.id)}>{`#${String(run.id)}`}</Anchor>
          </Table.Td>
          <Table.Td>{campaignName(run)}</Table.Td>
          <Table.Td>
            <RunStatusBadge run={run} />
          </Table.Td>
          <Table.Td fw={breaches(run) !== "0" && breaches(run) !== "—" ? 700 : undefined}>{breaches(run)}</Table.Td>
          <Table.Td>{`${String(readRunProgress(run).done ?? 0)} / ${String(readRunProgress(run).total ?? 0)}`}</Table.Td>
          <Table.Td>{formatDate(run.created_at)}</Table.Td>
        </>
      )}
    />
  );
}

function ProjectSecurity({ projectId }: { projectId: number }) {
  const [editing, setEditing] = useState<Editing>(null);
  const [starting, setStarting] = useState<Campaign | null>(null);
  const template = useCampaignTemplate(projectId, editing !== null && editing.campaign === null);

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Campaigns
        </Title>
        <Button
          onClick={() => {
            setEditing({ campaign: null });
          }}
        >
          New campaign
        </Button>
      </Group>
      {editing !== null &&
        (editing.campaign === null && template.isPending ? (
          <LoadingState label="Loading the template" />
        ) : (
          <CampaignEditor
            key={editing.campaign?.id ?? "new"}
            projectId={projectId}
            campaign={editing.campaign}
            initialText={editing.campaign?.text ?? template.data ?? ""}
            onDone={() => {
              setEditing(null);
            }}
          />
        ))}
      <CampaignList
        projectId={projectId}
        editing={editing !== null}
        onEdit={(campaign) => {
          setEditing({ campaign });
        }}
        onStart={setStarting}
      />
      <StartCampaignDialog
        projectId={projectId}
        campaign={starting}
        onClose={() => {
          setStarting(null);
        }}
      />
      <Title order={2} size="h4">
        Campaign runs
      </Title>
      <CampaignRuns projectId={projectId} />
    </Stack>
  );
}

export function SecurityPage() {
  const [params, setParams] = useSearchParams();
  const projects = useAllProjects();
  const projectParam = Number(params.get("project"));
  const owned = projects.data ?? [];
  const projectId =
    Number.isInteger(projectParam) && owned.some((p) => p.id === projectParam) ? projectParam : (owned[0]?.id ?? null);

  return (
    <ListPage
      wide
      title="Security"
      description="Attacks on the chatbot under test: can a user make it leak its instructions or leave its domain? Every breach comes with the words of its reply."
    >
      {projects.isPending && <LoadingState label="Loading projects" />}
      {projects.isError && <ErrorState error={projects.error} title="Could not load the projects" />}
      {projects.data?.length === 0 && (
        <Alert color="blue" title="No project yet">
          Campaigns belong to a project: create one first.
        </Alert>
      )}
      {owned.length > 0 && (
        <Select
          label="Project"
          data={owned.map((p) => ({ value: String(p.id), label: p.name }))}
          value={projectId === null ? null : String(projectId)}
          onChange={(value) => {
            if (value) setParams({ project: value });
          }}
          allowDeselect={false}
          maw={320}
        />
      )}
      {projectId !== null && <ProjectSecurity key={projectId} projectId={projectId} />}
    </ListPage>
  );
}
