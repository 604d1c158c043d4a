/** Create or edit a connector: a form generated from the technology's parameters, or a connector file in YAML. */
import {
  Anchor,
  Button,
  Card,
  Grid,
  Group,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue, useDocumentTitle } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { type SyntheticEvent, useMemo, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import {
  type Connector,
  type ConnectorInput,
  type Technology,
  useConnector,
  useConnectorYamlValidation,
  useCreateConnector,
  useTechnologies,
  useUpdateConnector,
} from "../../api/workspace/connectors";
import { ApiError } from "../../api/errors";
import { PageHeader } from "../../components/PageHeader";
import {
  initialParameterValues,
  ParameterForm,
  type ParameterErrors,
  parameterValuesToParams,
  type ParameterValues,
} from "../../components/ParameterForm";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { ProblemList } from "../../components/yaml-editor/ProblemList";
import { YamlEditor } from "../../components/yaml-editor/YamlEditor";
import { paths } from "../../lib/paths";
import { ConnectionTester } from "./ConnectionTester";
import { connectorFileSchema, connectorYaml } from "./connector-yaml";
import { ConnectorYamlDocs } from "./ConnectorYamlDocs";

type Mode = "form" | "yaml";

const VALIDATE_DEBOUNCE_MS = 400;

function defaultMode(technology: string): Mode {
  return technology === "http" ? "yaml" : "form";
}

function storedParams(connector: Connector | null, technology: string): Record<string, unknown> | null {
  return connector?.technology === technology ? (connector.params ?? {}) : null;
}

interface ConnectorFormProps {
  technologies: Technology[];
  connector: Connector | null;
}

function ConnectorForm({ technologies, connector }: ConnectorFormProps) {
  const navigate = useNavigate();
  const create = useCreateConnector();
  const update = useUpdateConnector();
  const save = connector === null ? create : update;

  const [name, setName] = useState(connector?.name ?? "");
  const [technologyName, setTechnologyName] = useState(connector?.technology ?? "");
  const technology = technologies.find((t) => t.name === technologyName) ?? null;
  const [mode, setMode] = useState<Mode>(defaultMode(technologyName));
  const [values, setValues] = useState<ParameterValues>(() =>
    technology ? initialParameterValues(technology.parameters, storedParams(connector, technologyName)) : {},
  );
  const [yamlText, setYamlText] = useState(() => (technology ? connectorYaml(technology, connector) : ""));
  const [volatileText, setVolatileText] = useState(() => (connector?.volatile ?? []).join("\n"));
  const [fieldErrors, setFieldErrors] = useState<{
    name?: string;
    technology?: string;
    volatile?: string;
    params: ParameterErrors;
  }>({
    params: {},
  });

  const [debouncedYaml] = useDebouncedValue(yamlText, VALIDATE_DEBOUNCE_MS);
  const validation = useConnectorYamlValidation(debouncedYaml, mode === "yaml" && technology !== null);
  const problems = validation.data?.problems ?? [];
  const editorSchema = useMemo(() => (technology ? connectorFileSchema(technology) : null), [technology]);
  const [goTo, setGoTo] = useState<((line: number, column: number) => void) | null>(null);
  const secretsSet = connector?.technology === technologyName ? connector.secrets_set : [];

  const chooseTechnology = (next: string | null) => {
    if (next === null) return;
    const chosen = technologies.find((t) => t.name === next);
    setTechnologyName(next);
    setMode(defaultMode(next));
    setValues(chosen ? initialParameterValues(chosen.parameters, storedParams(connector, next)) : {});
    setYamlText(chosen ? connectorYaml(chosen, connector) : "");
    setFieldErrors({ params: {} });
  };

  const applyServerErrors = (error: Error) => {
    if (!(error instanceof ApiError)) return;
    const next: { name?: string; technology?: string; volatile?: string; params: ParameterErrors } = { params: {} };
    for (const [field, messages] of Object.entries(error.fields)) {
      const message = messages.join(" ");
      if (field === "name") next.name = message;
      else if (field === "volatile") next.volatile = message;
      else if (field === "technology") next.technology = message;
      else if (field.startsWith("params.")) next.params[field.slice("params.".length)] = message;
    }
    setFieldErrors(next);
  };

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (technology === null) {
      setFieldErrors({ params: {}, technology: "Choose a technology." });
      return;
    }
    if (name.trim() === "") {
      setFieldErrors({ params: {}, name: "Give the connector a name." });
      return;
    }
    let body: ConnectorInput;
    if (mode === "yaml") {
      body = { name: name.trim(), yaml: yamlText };
    } else {
      const { params, errors } = parameterValuesToParams(technology.parameters, values, secretsSet);
      if (Object.keys(errors).length > 0) {
        setFieldErrors({ params: errors });
        return;
      }
      const volatile = volatileText
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "");
      body = { name: name.trim(), technology: technology.name, params, volatile };
    }
    setFieldErrors({ params: {} });
    const onError = applyServerErrors;
    if (connector === null) {
      create.mutate(body, {
        onSuccess: (saved) => {
          notifications.show({ color: "green", title: "Connector created", message: "Now test the connection." });
          void navigate(paths.connector(saved.id), { replace: true });
        },
        onError,
      });
    } else {
      update.mutate(
        { id: connector.id, body },
        {
          onSuccess: () => {
            notifications.show({ color: "green", title: "Connector saved", message: name.trim() });
            // Secrets typed in are now stored: the inputs go blank again.
            setValues((current) => {
              const next = { ...current };
              for (const p of technology.parameters) if (p.secret) next[p.name] = "";
              return next;
            });
          },
          onError,
        },
      );
    }
  };

  const knownFields = [
    "name",
    "technology",
    "volatile",
    ...(technology?.parameters.map((p) => `params.${p.name}`) ?? []),
  ];

  return (
    <Stack gap="lg">
      <form onSubmit={submit} noValidate aria-label="Connector">
        <Stack gap="md">
          <ServerErrorAlert error={save.error} title="Could not save the connector" formFields={knownFields} />
          <Grid gap="md">
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <TextInput
                label="Name"
                required
                value={name}
                error={fieldErrors.name}
                onChange={(event) => {
                  setName(event.currentTarget.value);
                }}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6 }}>
              <Select
                label="Technology"
                required
                placeholder="Choose how to reach the chatbot"
                data={technologies.map((t) => ({ value: t.name, label: t.name }))}
                value={technologyName || null}
                onChange={chooseTechnology}
                error={fieldErrors.technology}
                description={technology?.description}
                allowDeselect={false}
              />
            </Grid.Col>
          </Grid>

          {technology && (
            <SegmentedControl
              value={mode}
              onChange={(value) => {
                setMode(value === "yaml" ? "yaml" : "form");
              }}
              data={[
                { value: "form", label: "Form" },
                { value: "yaml", label: "YAML file" },
              ]}
              aria-label="Edit as"
              w="fit-content"
            />
          )}

          {technology && mode === "form" && (
            <Card withBorder padding="md">
              <ParameterForm
                parameters={technology.parameters}
                values={values}
                onChange={(parameter, value) => {
                  setValues((current) => ({ ...current, [parameter]: value }));
                }}
                errors={fieldErrors.params}
                secretsSet={secretsSet}
              />
              <Textarea
                mt="md"
                label="Values that change in every conversation"
                description="Optional. One regular expression a line, such as TKT-\d+ for a ticket number: a re-run against the current chatbot ignores these values when it compares replies (UUIDs, dates, times and ids are ignored already)."
                autosize
                minRows={2}
                maxRows={8}
                value={volatileText}
                error={fieldErrors.volatile}
                onChange={(event) => {
                  setVolatileText(event.currentTarget.value);
                }}
                styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
              />
            </Card>
          )}

          {technology && mode === "yaml" && (
            <Grid gap="md">
              <Grid.Col span={{ base: 12, lg: 7 }}>
                <Stack gap="xs">
                  <YamlEditor
                    label="Connector file"
                    value={yamlText}
                    onChange={setYamlText}
                    schema={editorSchema}
                    problems={problems}
                    describedBy="connector-problems"
                    minHeight={360}
                    onReady={(fn) => {
                      setGoTo(() => fn);
                    }}
                  />
                  <ProblemList
                    id="connector-problems"
                    problems={problems}
                    onGoTo={goTo ?? undefined}
                    validMessage={validation.data?.valid ? "The connector file is valid." : undefined}
                  />
                  {secretsSet.length > 0 && (
                    <Text size="xs" c="dimmed">
                      Stored secrets ({secretsSet.join(", ")}) are not shown; leave them out to keep them.
                    </Text>
                  )}
                </Stack>
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 5 }}>
                <Card withBorder padding="md">
                  <ConnectorYamlDocs
                    technology={technology}
                    onUseExample={() => {
                      setYamlText(connectorYaml(technology, null));
                    }}
                  />
                </Card>
              </Grid.Col>
            </Grid>
          )}

          <Group>
            <Button type="submit" loading={save.isPending}>
              {connector === null ? "Create connector" : "Save connector"}
            </Button>
            <Button variant="default" component={Link} to={paths.connectors}>
              Back to connectors
            </Button>
          </Group>
        </Stack>
      </form>

      {connector !== null && (
        <Card withBorder padding="md" component="section" aria-labelledby="test-connection-title">
          <Title order={2} size="h4" mb="sm" id="test-connection-title">
            Test the connection
          </Title>
          <ConnectionTester connectorId={connector.id} />
        </Card>
      )}
    </Stack>
  );
}

export function ConnectorEditPage() {
  const { connectorId } = useParams();
  const id = connectorId === undefined ? null : Number(connectorId);
  const technologies = useTechnologies();
  const connector = useConnector(id !== null && Number.isInteger(id) ? id : null);
  const title = id === null ? "New connector" : (connector.data?.name ?? "Connector");
  useDocumentTitle(`${title} · Parley`);

  let content;
  if (id !== null && !Number.isInteger(id))
    content = (
      <ErrorState
        error={null}
        title="There is no such connector"
        notFound={{ what: "connector", backTo: paths.connectors, backLabel: "Back to your connectors" }}
      />
    );
  else if (technologies.isPending || (id !== null && connector.isPending)) content = <LoadingState />;
  else if (technologies.isError)
    content = (
      <ErrorState
        error={technologies.error}
        title="Could not load the technologies"
        onRetry={() => void technologies.refetch()}
      />
    );
  else if (connector.isError)
    content = (
      <ErrorState
        error={connector.error}
        title="Could not load the connector"
        notFound={{ what: "connector", backTo: paths.connectors, backLabel: "Back to your connectors" }}
        onRetry={() => void connector.refetch()}
      />
    );
  else
    content = <ConnectorForm key={id ?? "new"} technologies={technologies.data} connector={connector.data ?? null} />;

  return (
    <Stack gap="lg" maw={1200}>
      <PageHeader
        title={title}
        description={
          <>
            Secret settings are stored encrypted and never shown again.{" "}
            <Anchor component={Link} to={paths.connectors} size="sm">
              All connectors
            </Anchor>
          </>
        }
      />
      {content}
    </Stack>
  );
}
