/** Create or edit a project: its chatbot, its LLM key and models, a budget, and whether results are public. */
import {
  Alert,
  Anchor,
  Autocomplete,
  Badge,
  Button,
  Card,
  Grid,
  Group,
  Loader,
  NumberInput,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { useDocumentTitle } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { Link, useNavigate, useParams } from "react-router";
import { useAllConnectors } from "../../api/workspace/connectors";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { useAllKeys } from "../../api/workspace/keys";
import {
  type Project,
  type ProjectInput,
  useCreateProject,
  useProject,
  useUpdateProject,
} from "../../api/workspace/projects";
import { useQualificationTexts } from "../../api/bench/qualify";
import { PageHeader } from "../../components/PageHeader";
import { PublicLinkField } from "../../components/PublicLink";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { ErrorState, LoadingState, QueryStates } from "../../components/StateViews";
import { paths } from "../../lib/paths";
import { useKeyModels } from "./use-key-models";

const FIELDS = [
  "name",
  "description",
  "connector",
  "llm_key",
  "exploration_model",
  "profile_model",
  "judge_model",
  "budget_usd",
  "public",
] as const;

interface FormValues {
  name: string;
  description: string;
  connector: string;
  llm_key: string;
  exploration_model: string;
  profile_model: string;
  judge_model: string;
  budget_usd: number | string;
  public: boolean;
}

function initialValues(project: Project | null): FormValues {
  return {
    name: project?.name ?? "",
    description: project?.description ?? "",
    connector: project?.connector ? String(project.connector) : "",
    llm_key: project?.llm_key ? String(project.llm_key) : "",
    exploration_model: project?.exploration_model ?? "",
    profile_model: project?.profile_model ?? "",
    judge_model: project?.judge_model ?? "",
    budget_usd: project?.budget_usd ? Number(project.budget_usd) : "",
    public: project?.public ?? false,
  };
}

function toInput(values: FormValues): ProjectInput {
  const budget = values.budget_usd === "" ? null : Number(values.budget_usd);
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    connector: Number(values.connector),
    llm_key: values.llm_key === "" ? null : Number(values.llm_key),
    exploration_model: values.exploration_model.trim(),
    profile_model: values.profile_model.trim(),
    judge_model: values.judge_model.trim(),
    budget_usd: budget === null || Number.isNaN(budget) ? null : budget.toFixed(2),
    public: values.public,
  };
}

const MODEL_FIELDS = [
  { field: "exploration_model", label: "Exploration model", help: "Used by TRACER to explore the chatbot." },
  { field: "profile_model", label: "Profile model", help: "Plays the simulated users in SENSEI runs." },
  { field: "judge_model", label: "Judge model", help: "Answers the rules' LLM questions in checks." },
] as const;

function ProjectForm({ project }: { project: Project | null }) {
  const navigate = useNavigate();
  const connectors = useAllConnectors();
  const keys = useAllKeys();
  const create = useCreateProject();
  const update = useUpdateProject();
  const save = project === null ? create : update;
  const form = useForm<FormValues>({
    mode: "controlled",
    initialValues: initialValues(project),
    validate: {
      name: isNotEmpty("Give the project a name."),
      connector: isNotEmpty("Choose the chatbot's connector."),
      // The server refuses it too: with a key, every run needs this model (runs.worker.deps falls back on it).
      exploration_model: (value, values) =>
        values.llm_key !== "" && value.trim() === ""
          ? "Choose the exploration model: TRACER explores with it, and SENSEI and checks fall back on it."
          : null,
    },
  });
  const selectedKey = keys.data?.find((k) => String(k.id) === form.values.llm_key) ?? null;
  const models = useKeyModels(selectedKey);
  // Each model's last qualification on this key (issue 36), beside its name in the pickers.
  const qualified = useQualificationTexts(selectedKey?.id ?? null);

  const handleSubmit = form.onSubmit((values) => {
    const body = toInput(values);
    const onError = (error: Error) => {
      if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
    };
    const onSuccess = (saved: Project) => {
      notifications.show({ color: "green", title: project ? "Project saved" : "Project created", message: saved.name });
      void navigate(paths.testCenter(saved.id));
    };
    if (project === null) create.mutate(body, { onSuccess, onError });
    else update.mutate({ id: project.id, body }, { onSuccess, onError });
  });

  if (connectors.isPending || keys.isPending) return <LoadingState />;
  if (connectors.isError || keys.isError)
    return (
      <ErrorState
        error={connectors.error ?? keys.error}
        title="Could not load your connectors and keys"
        onRetry={() => {
          void connectors.refetch();
          void keys.refetch();
        }}
      />
    );

  return (
    <form onSubmit={handleSubmit} noValidate aria-label="Project">
      <Stack gap="md">
        <ServerErrorAlert error={save.error} title="Could not save the project" formFields={FIELDS} />
        <Card withBorder padding="md">
          <Stack gap="sm">
            <TextInput label="Name" required {...form.getInputProps("name")} />
            <Textarea label="Description" autosize minRows={2} maxRows={6} {...form.getInputProps("description")} />
            {connectors.data.length === 0 ? (
              <Alert color="yellow" title="No connector yet">
                A project tests one chatbot.{" "}
                <Anchor component={Link} to={paths.newConnector}>
                  Create a connector
                </Anchor>{" "}
                first.
              </Alert>
            ) : (
              <Select
                label="Connector"
                required
                description="The chatbot under test."
                placeholder="Choose a connector"
                data={connectors.data.map((c) => ({ value: String(c.id), label: `${c.name} (${c.technology})` }))}
                allowDeselect={false}
                {...form.getInputProps("connector")}
              />
            )}
          </Stack>
        </Card>

        <Card withBorder padding="md">
          <Stack gap="sm">
            <Title order={2} size="h5">
              LLM
            </Title>
            <Select
              label="LLM key"
              description="Runs of this project use this key. Without one, runs cannot start."
              placeholder={keys.data.length === 0 ? "No keys yet" : "Choose a key"}
              data={keys.data.map((k) => ({ value: String(k.id), label: `${k.name} (${k.provider})` }))}
              clearable
              {...form.getInputProps("llm_key")}
            />
            {keys.data.length === 0 && (
              <Text size="sm">
                <Anchor component={Link} to={paths.keys}>
                  Add an LLM key
                </Anchor>{" "}
                to choose models from its live list.
              </Text>
            )}
            {selectedKey && (
              <Group gap="xs" role="status">
                {models.loading ? (
                  <>
                    <Loader size="xs" />
                    <Text size="sm" c="dimmed">
                      Asking the provider for its models…
                    </Text>
                  </>
                ) : (
                  <>
                    {models.source && (
                      <Badge variant="light" color={models.source === "live" ? "teal" : "gray"}>
                        {models.source === "live" ? "live model list" : "curated model list"}
                      </Badge>
                    )}
                    {models.message && (
                      <Text size="sm" c="dimmed">
                        {models.message}
                      </Text>
                    )}
                    <Button size="compact-xs" variant="subtle" onClick={models.refresh}>
                      Refresh model list
                    </Button>
                  </>
                )}
              </Group>
            )}
            <Grid gap="sm">
              {MODEL_FIELDS.map(({ field, label, help }) => (
                <Grid.Col key={field} span={{ base: 12, md: 4 }}>
                  <Autocomplete
                    label={label}
                    description={`${help} Pick from the list or type any model name.`}
                    withAsterisk={field === "exploration_model" && form.values.llm_key !== ""}
                    data={[...new Set([...models.models, ...Object.keys(qualified)])]}
                    limit={50}
                    renderOption={({ option }) => (
                      <Stack gap={0}>
                        <Text size="sm">{option.value}</Text>
                        {qualified[option.value] && (
                          <Text size="xs" c="dimmed">
                            {qualified[option.value]}
                          </Text>
                        )}
                      </Stack>
                    )}
                    {...form.getInputProps(field)}
                  />
                  {qualified[form.values[field]] && (
                    <Text size="xs" c="dimmed" mt={4} aria-label={`Last qualification of ${form.values[field]}`}>
                      Last qualification: {qualified[form.values[field]]}
                    </Text>
                  )}
                </Grid.Col>
              ))}
            </Grid>
            <NumberInput
              label="Budget per run (USD)"
              description="A run stops when its LLM spend reaches this. Empty: no limit."
              min={0}
              decimalScale={2}
              prefix="$"
              maw={260}
              {...form.getInputProps("budget_usd")}
            />
          </Stack>
        </Card>

        <Card withBorder padding="md">
          <Stack gap="sm">
            <Switch
              label="Public results"
              description="Anyone with the link can read this project's runs and reports (not its connector, key or budget)."
              {...form.getInputProps("public", { type: "checkbox" })}
            />
            {form.values.public &&
              (project === null ? (
                <Text size="sm" c="dimmed">
                  The public link appears here and in the test center once the project is created.
                </Text>
              ) : (
                <>
                  {!project.public && (
                    <Text size="sm" c="dimmed">
                      Save the project to publish it at this link.
                    </Text>
                  )}
                  <PublicLinkField projectId={project.id} />
                </>
              ))}
          </Stack>
        </Card>

        <Group>
          <Button type="submit" loading={save.isPending}>
            {project === null ? "Create project" : "Save project"}
          </Button>
          <Button variant="default" component={Link} to={project ? paths.testCenter(project.id) : paths.projects}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function ProjectFormPage() {
  const { projectId } = useParams();
  const id = projectId === undefined ? null : Number(projectId);
  const project = useProject(id ?? 0, id !== null);
  const title = id === null ? "New project" : `Edit ${project.data?.name ?? "project"}`;
  useDocumentTitle(`${title} · Parley`);

  let content;
  if (id === null) content = <ProjectForm project={null} />;
  else
    content = (
      <QueryStates
        query={project}
        what="the project"
        notFound={{ what: "project", backTo: paths.projects, backLabel: "Back to your projects" }}
      >
        {(data) => <ProjectForm key={data.id} project={data} />}
      </QueryStates>
    );

  return (
    <Stack gap="lg" maw={960}>
      <PageHeader title={title} description="A project puts a chatbot, an LLM key and the models to use together." />
      {content}
    </Stack>
  );
}
