import { Badge, Button, Group, Pagination, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useState } from "react";
import { Link } from "react-router";
import { useAllConnectors } from "../../api/connectors";
import { pageCount } from "../../api/pagination";
import { type Project, useDeleteProject, useProjectsPage } from "../../api/projects";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { PageHeader } from "../../components/PageHeader";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { paths } from "../../lib/paths";
import { textOr } from "../../lib/text";

export function ProjectsPage() {
  useDocumentTitle("Projects · Parley");
  const [page, setPage] = useState(1);
  const projects = useProjectsPage(page);
  const connectors = useAllConnectors();
  const deleteProject = useDeleteProject();
  const [deleting, setDeleting] = useState<Project | null>(null);
  const connectorName = (id: number | null | undefined) => connectors.data?.find((c) => c.id === id)?.name ?? "—";

  const newButton = (
    <Button component={Link} to={paths.newProject}>
      New project
    </Button>
  );

  let content;
  if (projects.isPending) content = <LoadingState label="Loading projects" />;
  else if (projects.isError)
    content = (
      <ErrorState error={projects.error} title="Could not load your projects" onRetry={() => void projects.refetch()} />
    );
  else if (projects.data.count === 0)
    content = (
      <EmptyState title="No projects yet" action={newButton}>
        A project tests one chatbot: it holds the profiles, rules and runs, and says which LLM key and models to use.
      </EmptyState>
    );
  else
    content = (
      <Stack gap="sm">
        <Table.ScrollContainer minWidth={760}>
          <Table striped highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Connector</Table.Th>
                <Table.Th>Models</Table.Th>
                <Table.Th>Budget</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {projects.data.results.map((project) => (
                <Table.Tr key={project.id}>
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
                  <Table.Td>
                    <Group gap={6} justify="flex-end" wrap="nowrap">
                      <Button size="xs" variant="light" component={Link} to={paths.testCenter(project.id)}>
                        Test center
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        component={Link}
                        to={paths.editProject(project.id)}
                        aria-label={`Edit ${project.name}`}
                      >
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        aria-label={`Delete ${project.name}`}
                        onClick={() => {
                          setDeleting(project);
                        }}
                      >
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {projects.data.count > projects.data.results.length && (
          <Pagination total={pageCount(projects.data.count)} value={page} onChange={setPage} />
        )}
      </Stack>
    );

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Projects"
        description="Open a project's test center to write profiles, explore with TRACER and run SENSEI."
        actions={projects.data && projects.data.count > 0 ? newButton : undefined}
      />
      {content}
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete ${deleting?.name ?? "project"}?`}
        confirmLabel="Delete project"
        loading={deleteProject.isPending}
        error={deleteProject.error}
        onClose={() => {
          setDeleting(null);
          deleteProject.reset();
        }}
        onConfirm={() => {
          if (deleting === null) return;
          deleteProject.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null);
            },
          });
        }}
      >
        Its profiles, rules, runs and reports are deleted with it. This cannot be undone.
      </ConfirmDialog>
    </Stack>
  );
}
