import { Stack } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import type { ReactNode } from "react";
import { PageHeader } from "./PageHeader";

interface ListPageProps {
  title: string;
  /** The browser tab's name, before " · Parley"; the title unless said. */
  documentTitle?: string;
  description: ReactNode;
  /** The screen's main actions, at the end of the header. */
  actions?: ReactNode;
  /** Use the whole width, for tables of many columns (the run dashboards). */
  wide?: boolean;
  /** The list (a `ResourceTable`, or a `RunsTable` that filters one) and the dialogs it opens. */
  children: ReactNode;
}

/** The shape of a list screen: its header (title, a line about it, main actions), then the list. */
export function ListPage({
  title,
  documentTitle = title,
  description,
  actions,
  wide = false,
  children,
}: ListPageProps) {
  useDocumentTitle(`${documentTitle} · Parley`);
  return (
    <Stack gap="lg" maw={wide ? undefined : 1100}>
      <PageHeader title={title} description={description} actions={actions} />
      {children}
    </Stack>
  );
}
