/** A run kind's dashboard: every run of the kind, filtered, sorted and paginated on the server (`RunsTable`). */
import { Button } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";
import type { DashboardKind } from "../../api/runs/runs-dashboard";
import { ListPage } from "../../components/ListPage";
import { EmptyState } from "../../components/StateViews";
import { RunsTable } from "./RunsTable";

export function RunsDashboardPage({
  kind,
  title,
  description,
  start,
  emptyText,
  children,
}: {
  kind: DashboardKind;
  title: string;
  description: string;
  /** Before the first run: the button to the projects, where one starts. */
  start: string;
  emptyText: string;
  /** Below the table (the pass rates). */
  children?: ReactNode;
}) {
  return (
    <ListPage wide title={title} description={description}>
      <RunsTable
        kind={kind}
        mode="owner"
        empty={
          <EmptyState
            title={`No ${title} run yet`}
            action={
              <Button component={Link} to="/projects" variant="light">
                {start}
              </Button>
            }
          >
            {emptyText}
          </EmptyState>
        }
      />
      {children}
    </ListPage>
  );
}
