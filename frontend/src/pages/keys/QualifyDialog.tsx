/**
 * "Qualify models" on an LLM key: choose models (the key's, or Parley's offline doubles), a size and a seed, see
 * the cost and time estimate, then start — refused by the server above the maximum cost given.
 */
import { Alert, Button, Group, Modal, NumberInput, Select, Stack, Table, TagsInput, Text } from "@mantine/core";
import { useState } from "react";
import { useNavigate } from "react-router";
import { ApiError } from "../../api/errors";
import type { LLMKey } from "../../api/workspace/keys";
import { type QualifyEstimate, type QualifyStart, useQualifyEstimate, useStartQualify } from "../../api/bench/qualify";
import { paths } from "../../lib/paths";

const DOUBLES = ["double:perfect", "double:imperfect", "double:loose-json"];
const SIZES = [
  { value: "tiny", label: "Tiny — one bot, minutes; too few to tell" },
  { value: "small", label: "Small — two bots" },
  { value: "default", label: "Default — two bots, under $1 on a mini model" },
];

function EstimateTable({ estimate }: { estimate: QualifyEstimate }) {
  return (
    <Stack gap={4} aria-label="Estimate">
      <Text size="sm">
        Partner: {estimate.partner}. Priced total: about ${estimate.cost_usd.toFixed(2)}.
      </Text>
      <Table withTableBorder fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Model</Table.Th>
            <Table.Th>LLM calls</Table.Th>
            <Table.Th>Tokens</Table.Th>
            <Table.Th>Cost or time</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {estimate.rows.map((row) => (
            <Table.Tr key={row.model}>
              <Table.Td>{row.model}</Table.Td>
              <Table.Td>~{row.calls.toLocaleString()}</Table.Td>
              <Table.Td>{(row.prompt_tokens + row.completion_tokens).toLocaleString()}</Table.Td>
              <Table.Td>
                {row.cost_usd !== null
                  ? `about $${row.cost_usd.toFixed(2)}`
                  : row.seconds !== null
                    ? `unpriced: about ${String(Math.round(row.seconds / 60))} min`
                    : "offline double: no cost"}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export function QualifyDialog({ llmKey, onClose }: { llmKey: LLMKey; onClose: () => void }) {
  const navigate = useNavigate();
  const [models, setModels] = useState<string[]>([]);
  const [size, setSize] = useState<string>("default");
  const [seed, setSeed] = useState<number | string>(0);
  const [maxCost, setMaxCost] = useState<number | string>("");
  const [minDecided, setMinDecided] = useState<number | string>(20);
  const [usableKills, setUsableKills] = useState<number | string>(40);
  const estimate = useQualifyEstimate();
  const start = useStartQualify();

  const body = (): QualifyStart => ({
    models,
    size: size as QualifyStart["size"],
    seed: Number(seed) || 0,
    max_cost: maxCost === "" ? null : Number(maxCost),
    thresholds: { min_decided: Number(minDecided) || 20, usable_kills: Number(usableKills) },
  });
  const error = start.error ?? estimate.error;

  return (
    <Modal opened onClose={onClose} title={`Qualify models on ${llmKey.name}`} size="lg">
      <Stack gap="sm">
        <TagsInput
          label="Models"
          description="This key's model names, or Parley's offline doubles (double:…). Press Enter after each."
          data={DOUBLES}
          value={models}
          onChange={(value) => {
            setModels(value);
            estimate.reset();
          }}
        />
        <Group grow>
          <Select
            label="Size"
            data={SIZES}
            value={size}
            allowDeselect={false}
            onChange={(value) => {
              setSize(value ?? "default");
              estimate.reset();
            }}
          />
          <NumberInput label="Seed" min={0} value={seed} onChange={setSeed} />
          <NumberInput
            label="Maximum cost (USD)"
            min={0}
            decimalScale={2}
            prefix="$"
            value={maxCost}
            onChange={setMaxCost}
          />
        </Group>
        <Group grow>
          <NumberInput
            label="Fewest decided conversations"
            description="Fewer: too few to tell (D32: 20)"
            min={1}
            value={minDecided}
            onChange={setMinDecided}
          />
          <NumberInput
            label="Usable: kills at least (%)"
            description="D32: 40 %"
            min={0}
            max={100}
            value={usableKills}
            onChange={setUsableKills}
          />
        </Group>
        {estimate.data && <EstimateTable estimate={estimate.data} />}
        {error && (
          <Alert color="red" title="Refused">
            {error instanceof ApiError ? error.detail : "Something went wrong."}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button
            variant="default"
            disabled={models.length === 0}
            loading={estimate.isPending}
            onClick={() => {
              estimate.mutate({ keyId: llmKey.id, body: body() });
            }}
          >
            Estimate
          </Button>
          <Button
            disabled={!estimate.data}
            loading={start.isPending}
            onClick={() => {
              start.mutate(
                { keyId: llmKey.id, body: body() },
                {
                  onSuccess: (run) => {
                    void navigate(paths.qualification(run.id));
                  },
                },
              );
            }}
          >
            Start qualification
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
