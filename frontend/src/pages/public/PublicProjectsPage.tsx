/** Public projects: anyone can browse their TRACER and SENSEI dashboards. */
import { Anchor, Table, Text } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { usePublicProjects } from "../../api/workspace/public";
import { ListPage } from "../../components/ListPage";
import { ResourceTable } from "../../components/ResourceTable";
import { EmptyState } from "../../components/StateViews";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { formatDate } from "../dashboards/format";

export function PublicProjectsPage() {
  const [page, setPage] = useState(1);
  const projects = usePublicProjects(page);
  return (
    <ListPage
      title="Public projects"
      description="Chatbot test results their owners chose to share: explorations, simulated conversations and checks."
    >
      <ResourceTable
        query={projects}
        plural="projects"
        errorTitle="Could not load the projects"
        empty={<EmptyState title="No public project yet" />}
        label="Public projects"
        columns={["Project", "Description", "Owner", "Updated"]}
        minWidth={720}
        cells={(project) => (
          <>
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
          </>
        )}
        page={page}
        onPageChange={setPage}
      />
    </ListPage>
  );
}
