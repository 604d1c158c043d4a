/**
 * Security campaigns of a project: the campaign documents (YAML editor with schema completion), starting one,
 * and the project's campaign runs with their breaches.
 */
import { Anchor, Button, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { isRunActive, type Run } from "../../api/runs/runs";
import {
  attemptsText,
  type Campaign,
  campaignName,
  useCampaigns,
  useConvertCampaign,
  useDeleteCampaign,
  useSaveCampaign,
  useSecurityRuns,
} from "../../api/security/security";
import { ResourceTable } from "../../components/ResourceTable";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { EmptyState } from "../../components/StateViews";
import { counted } from "../../lib/text";
import { formatDate } from "../dashboards/format";
import { RunStatusBadge } from "../dashboards/RunStatusBadge";
import type { DocumentSpec } from "../../components/documents/DocumentEditor";
import { DocumentSection, ProjectPickerPage } from "../documents/DocumentSection";
import { securityPaths } from "./security-paths";
import { StartCampaignDialog } from "./StartCampaignDialog";

const CAMPAIGN_DOCUMENTS: DocumentSpec = {
  kind: "campaigns",
  schema: "campaign",
  noun: "campaign",
  plural: "Campaigns",
  hint: "Ctrl+Space suggests attacks, oracles and keys; hover a key for its description; Ctrl+S saves. An invalid campaign is kept but cannot run.",
  minHeight: 300,
  validateAfterMs: 400,
};

const nameOf = (campaign: Campaign) => campaign.name ?? `campaign ${String(campaign.id)}`;

/** The campaigns, their editor (which rewrites a reference `security.yml` in Parley's format), and Run. */
function CampaignDocuments({ projectId, onStart }: { projectId: number; onStart: (campaign: Campaign) => void }) {
  const campaigns = useCampaigns(projectId);
  const remove = useDeleteCampaign();
  const convert = useConvertCampaign();
  return (
    <DocumentSection
      spec={CAMPAIGN_DOCUMENTS}
      projectId={projectId}
      list={campaigns}
      useSave={useSaveCampaign}
      remove={remove}
      empty={
        <EmptyState title="No campaign yet">
          A campaign lists attacks on the chatbot — asking for its instructions, jailbreaks, hidden instructions in
          Base64 — and how to tell whether it gave in.
        </EmptyState>
      }
      invalidLabel={(campaign) => counted(campaign.problems.filter((p) => p.severity === "error").length, "error")}
      minWidth={600}
      rowActions={(campaign) => (
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
      )}
      deleteNote="Past campaign runs keep their copy of the campaign."
      editorActions={(draft) =>
        draft.problems.some((problem) => problem.message.includes("reference format")) && (
          <Button
            variant="light"
            loading={convert.isPending}
            onClick={() => {
              convert.mutate(
                { projectId, text: draft.text },
                {
                  onSuccess: (converted) => {
                    draft.setText(converted);
                  },
                },
              );
            }}
          >
            Convert to Parley&apos;s format
          </Button>
        )
      }
      editorAlerts={<ServerErrorAlert error={convert.error} title="Could not convert the campaign" />}
      onEditorChange={convert.reset}
    />
  );
}

function breaches(run: Run): string {
  const done = run.counters.breached ?? 0;
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
          <Table.Td>{attemptsText(run)}</Table.Td>
          <Table.Td>{formatDate(run.created_at)}</Table.Td>
        </>
      )}
    />
  );
}

function ProjectSecurity({ projectId }: { projectId: number }) {
  const [starting, setStarting] = useState<Campaign | null>(null);
  return (
    <>
      <CampaignDocuments projectId={projectId} onStart={setStarting} />
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
    </>
  );
}

export function SecurityPage() {
  return (
    <ProjectPickerPage
      title="Security"
      description="Attacks on the chatbot under test: can a user make it leak its instructions or leave its domain? Every breach comes with the words of its reply."
      belonging="Campaigns"
    >
      {(projectId) => <ProjectSecurity projectId={projectId} />}
    </ProjectPickerPage>
  );
}
