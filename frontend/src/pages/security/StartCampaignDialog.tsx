/**
 * Starting a campaign run: what it will do (attempts, LLM calls at most, a cost ceiling with the project's
 * model), an optional seed, for a campaign with `from:` the TRACER run whose states it attacks from, then the
 * run's progress in the same dialog.
 */
import { List, NumberInput, Select, Stack, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import { DEFAULT_CONCURRENCY, useStartProjectRun } from "../../api/runs/project-runs";
import { useProjectRuns } from "../../api/runs/runs-dashboard";
import { type Campaign, useCampaignPlan } from "../../api/security/security";
import { StartRunDialog, StartRunForm } from "../../components/StartRunDialog";
import { LoadingState } from "../../components/StateViews";
import { counted } from "../../lib/text";
import { formatCost } from "../dashboards/format";

interface StartCampaignDialogProps {
  projectId: number;
  campaign: Campaign | null;
  onClose: () => void;
}

export function StartCampaignDialog({ projectId, campaign, onClose }: StartCampaignDialogProps) {
  const start = useStartProjectRun(projectId);
  const plan = useCampaignPlan();
  const [seed, setSeed] = useState<string | number>("");
  const [runId, setRunId] = useState<number | null>(null);
  const [tracer, setTracer] = useState<string | null>(null);
  const campaignId = campaign?.id ?? null;
  // `from:` at the top level of the campaign: it attacks from the states of a TRACER run.
  const fromStates = campaign !== null && /^from:/m.test(campaign.text);
  const tracerRuns = useProjectRuns(fromStates ? projectId : null, "tracer");
  const finished = (tracerRuns.data ?? []).filter((run) => run.status === "succeeded");
  const { mutate: askPlan, reset: resetPlan } = plan;

  useEffect(() => {
    if (campaignId === null) return;
    resetPlan();
    askPlan({ projectId, id: campaignId });
  }, [askPlan, resetPlan, projectId, campaignId]);

  const close = () => {
    setRunId(null);
    start.reset();
    onClose();
  };
  const planned = plan.data;

  return (
    <StartRunDialog
      title={`Run ${campaign?.name ?? "campaign"}`}
      opened={campaign !== null}
      onClose={close}
      following={{ runId, title: `Campaign ${campaign?.name ?? ""}` }}
    >
      <StartRunForm
        label="Start the campaign"
        start={start}
        errorTitle="Could not start the campaign"
        submitLabel="Start campaign"
        canSubmit={campaign?.valid === true}
        onCancel={close}
        onSubmit={() => {
          if (campaign === null) return;
          start.mutate(
            {
              kind: "security",
              campaign: campaign.id,
              concurrency: DEFAULT_CONCURRENCY, // not used by campaigns, which run their attempts one by one
              ...(typeof seed === "number" && { seed }),
              ...(fromStates && tracer !== null && { tracer: Number(tracer) }),
            },
            {
              onSuccess: (run) => {
                setRunId(run.id);
              },
            },
          );
        }}
      >
        <Stack gap="xs">
          <Text size="sm">
            Each attempt is a fresh conversation with the chatbot. A breach is reported only with words quoted from its
            reply; what cannot be decided is reported as inconclusive.
          </Text>
          {plan.isPending && <LoadingState label="Planning the campaign" />}
          {planned && (
            <List size="sm" aria-label="What the campaign will do">
              {/* The plan counts one starting point; from TRACER's states every figure is per state. */}
              <List.Item>
                {counted(planned.attempts, "attempt")}
                {fromStates && " per state, each after its recorded turns (no LLM call to reach a state)"}
              </List.Item>
              <List.Item>
                {planned.llm_calls_at_most === 0
                  ? "No LLM call (built-in tasks, oracles decided in code)"
                  : `At most ${String(planned.llm_calls_at_most)} LLM calls${fromStates ? " per state" : ""} with ${planned.model ?? "the project's model"}`}
              </List.Item>
              <List.Item>
                {planned.estimated_cost_usd === null
                  ? "Cost: unknown (the model has no price)"
                  : `Cost: at most ${formatCost(planned.estimated_cost_usd)}${fromStates ? " per state" : ""}`}
              </List.Item>
            </List>
          )}
          {fromStates && (
            <Select
              label="TRACER run to attack from"
              description="Every attack is sent from each state this run found, after replaying its recorded turns."
              placeholder="The latest finished TRACER run"
              data={finished.map((run) => ({ value: String(run.id), label: `TRACER run #${String(run.id)}` }))}
              value={tracer}
              onChange={setTracer}
              clearable
              maw={320}
            />
          )}
          <NumberInput
            label="Seed"
            description="Fixes the marker words, phrasings and scrambles; empty draws one."
            value={seed}
            onChange={setSeed}
            min={0}
            allowDecimal={false}
            maw={220}
          />
        </Stack>
      </StartRunForm>
    </StartRunDialog>
  );
}
