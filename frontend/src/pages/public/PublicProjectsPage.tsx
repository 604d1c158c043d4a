/** Public projects: anyone can browse their TRACER and SENSEI dashboards. */
import { Anchor, Group, Pagination, Stack, Table, Text } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useState } from "react";
import { Link } from "react-router";
import { pageCount } from "../../api/pagination";
import { usePublicProjects } from "../../api/public";
import { PageHeader } from "../../components/PageHeader";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { formatDate } from "../dashboards/format";

export function PublicProjectsPage() {
  useDocumentTitle("Public projects · Parley");
  const [page, setPage] = useState(1);
  const projects = usePublicProjects(page);
  return (
    <Stack gap="md">
      <PageHeader
        title="Public projects"
        description="Chatbot test results their owners chose to share: explorations, simulated conversations and checks."
      />
      {projects.isPending && <LoadingState label="Loading projects" />}
      {projects.isError && <ErrorState error={projects.error} title="Could not load the projects" />}
      {projects.data?.count === 0 && <EmptyState title="No public project yet" />}
      {projects.data && projects.data.count > 0 && (
        <>
          <Table withTableBorder highlightOnHover aria-label="Public projects">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Project</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Owner</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {projects.data.results.map((project) => (
                <Table.Tr key={project.id}>
                  <Table.Td>
                    <Anchor component={Link} to={dashboardPaths.publicProject(project.id)} fw={600}>
                      {project.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={2}>
                      {project.description ?? ""}
                    </Text>
                  </Table.Td>
                  <Table.Td>{project.owner_name}</Table.Td>
                  <Table.Td>{formatDate(project.updated_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group justify="flex-end">
            {projects.data.count > projects.data.results.length && (
              <Pagination total={pageCount(projects.data.count)} value={page} onChange={setPage} />
            )}
          </Group>
        </>
      )}
    </Stack>
  );
}
