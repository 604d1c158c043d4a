/** One public project, read-only: its TRACER, SENSEI, check and bench runs. */
import { Anchor, Stack, Tabs, Text } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { Link, useParams } from "react-router";
import { useProject } from "../../api/workspace/projects";
import { PageHeader } from "../../components/PageHeader";
import { QueryStates } from "../../components/StateViews";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { PassRateCard } from "../dashboards/PassRateCard";
import { RunsTable } from "../dashboards/RunsTable";

export function PublicProjectPage() {
  const projectId = Number(useParams().projectId);
  const valid = Number.isInteger(projectId) && projectId > 0;
  const project = useProject(valid ? projectId : 0, valid);
  useDocumentTitle(`${project.data?.name ?? "Public project"} · Parley`);

  if (!project.isSuccess) {
    const notFound = {
      what: "public project",
      backTo: dashboardPaths.publicProjects,
      backLabel: "Back to the public projects",
    };
    return <QueryStates query={project} what="the project" notFound={notFound} />;
  }
  return (
    <Stack gap="md">
      <Anchor component={Link} to={dashboardPaths.publicProjects} size="sm">
        ← Public projects
      </Anchor>
      <PageHeader title={project.data.name} description={project.data.description} />
      <Text size="sm" c="dimmed">{`Shared by ${project.data.owner_name}.`}</Text>
      <Tabs defaultValue="tracer" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="tracer">TRACER</Tabs.Tab>
          <Tabs.Tab value="sensei">SENSEI</Tabs.Tab>
          <Tabs.Tab value="checks">Checks</Tabs.Tab>
          <Tabs.Tab value="bench">Bench</Tabs.Tab>
        </Tabs.List>
        <Stack pt="md" gap="md">
          <Tabs.Panel value="tracer">
            <RunsTable kind="tracer" mode="public" projectId={projectId} />
          </Tabs.Panel>
          <Tabs.Panel value="sensei">
            <Stack gap="md">
              <RunsTable kind="sensei" mode="public" projectId={projectId} />
              <PassRateCard kind="sensei" mode="public" projectId={projectId} />
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="checks">
            <RunsTable kind="check" mode="public" projectId={projectId} />
          </Tabs.Panel>
          <Tabs.Panel value="bench">
            <RunsTable kind="bench" mode="public" projectId={projectId} />
          </Tabs.Panel>
        </Stack>
      </Tabs>
    </Stack>
  );
}
