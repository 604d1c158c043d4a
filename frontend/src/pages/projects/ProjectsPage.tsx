import { Badge, Button, Group, Table, Text } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { useAllConnectors } from "../../api/workspace/connectors";
import { useDeleteProject, useProjectsPage } from "../../api/workspace/projects";
import { ResourceListPage } from "../../components/ListPage";
import { paths } from "../../lib/paths";
import { textOr } from "../../lib/text";

export function ProjectsPage() {
  const [page, setPage] = useState(1);
  const projects = useProjectsPage(page);
  const connectors = useAllConnectors();
  const remove = useDeleteProject();
  const connectorName = (id: number | null | undefined) => connectors.data?.find((c) => c.id === id)?.name ?? "—";

  const newButton = (
    <Button component={Link} to={paths.newProject}>
      New project
    </Button>
  );

  return (
    <ResourceListPage
      title="Projects"
      description="Open a project's test center to write profiles, explore with TRACER and run SENSEI."
      query={projects}
      plural="projects"
      noun="project"
      create={newButton}
      emptyText="A project tests one chatbot: it holds the profiles, rules and runs, and says which LLM key and models to use."
      remove={remove}
      deleteText={() => "Its profiles, rules, runs and reports are deleted with it. This cannot be undone."}
      columns={["Name", "Connector", "Models", "Budget"]}
      minWidth={760}
      cells={(project) => (
        <>
          <Table.Td>
            <Group gap={6}>
              <Text component={Link} to={paths.testCenter(project.id)} fw={500} c="inherit" td="underline">
                {project.name}
              </Text>
              {project.public && (
                <Badge size="xs" variant="light" color="grape">
                  public
                </Badge>
              )}
            </Group>
            {project.description && (
              <Text size="xs" c="dimmed" lineClamp={1}>
                {project.description}
              </Text>
            )}
          </Table.Td>
          <Table.Td>{connectorName(project.connector)}</Table.Td>
          <Table.Td>
            <Text size="xs">Exploration: {textOr(project.exploration_model, "default")}</Text>
            <Text size="xs">Profiles: {textOr(project.profile_model, "default")}</Text>
          </Table.Td>
          <Table.Td>{project.budget_usd ? `$${project.budget_usd}` : "no limit"}</Table.Td>
        </>
      )}
      actions={(project) => (
        <Button size="xs" variant="light" component={Link} to={paths.testCenter(project.id)}>
          Test center
        </Button>
      )}
      editPath={(project) => paths.editProject(project.id)}
      page={page}
      onPageChange={setPage}
    />
  );
}
