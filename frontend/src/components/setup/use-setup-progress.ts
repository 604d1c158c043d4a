/**
 * The setup guide's checklist, computed from the API: a key, a connector, a project, a profile, a first run.
 * Each step is done when the data says so, so the list stays right whatever screen the user used, and it is
 * asked again often enough to notice steps done elsewhere (another tab, the API, the command line).
 * "Done" means usable: a key whose last test failed does not count, nor a connector until a test of its current
 * settings has passed — the step says why and links to where it is fixed.
 */
import { useQueries, useQuery } from "@tanstack/react-query";
import { useEffect, useEffectEvent } from "react";
import { useLocation } from "react-router";
import { connectorsPageQueryOptions, connectorTestState, connectorTestsQueryOptions } from "../../api/workspace/connectors";
import { keysPageQueryOptions } from "../../api/workspace/keys";
import { getProfilesPage } from "../../api/workspace/profiles";
import { profileKeys } from "../../api/query-keys";
import { projectsPageQueryOptions } from "../../api/workspace/projects";
import { runsQueryOptions } from "../../api/runs/runs";
import { paths } from "../../lib/paths";

export interface SetupStep {
  id: "key" | "connector" | "project" | "profiles" | "run";
  title: string;
  description: string;
  done: boolean;
  /** Why a step that looks done is not (a failed test), or what is left to do in it. */
  note?: string;
  to: string;
  action: string;
}

const LONG_RUN_KINDS = new Set(["tracer", "sensei", "check", "bench"]);

/**
 * How long an answer counts as current. After that, the next navigation or return to the tab asks again. The
 * banner lives in the layout and stays mounted from screen to screen, so "refetch on mount" alone never would.
 */
export const SETUP_FRESH_MS = 10_000;

const keepCurrent = { staleTime: SETUP_FRESH_MS, refetchOnWindowFocus: true } as const;

export function useSetupProgress() {
  const keys = useQuery({ ...keysPageQueryOptions(1), ...keepCurrent });
  const connectors = useQuery({ ...connectorsPageQueryOptions(1), ...keepCurrent });
  const connectorTests = useQuery({ ...connectorTestsQueryOptions(), ...keepCurrent });
  const projects = useQuery({ ...projectsPageQueryOptions(1), ...keepCurrent });
  const runs = useQuery({ ...runsQueryOptions(1), ...keepCurrent });
  const projectList = projects.data?.results ?? [];
  const profilePages = useQueries({
    queries: projectList.map((project) => ({
      queryKey: profileKeys.firstPage(project.id),
      queryFn: ({ signal }: { signal: AbortSignal }) => getProfilesPage(project.id, 1, signal),
      ...keepCurrent,
    })),
  });

  const firstProject = projectList[0];
  const projectWithProfiles = projectList.find((_, index) => (profilePages[index]?.data?.count ?? 0) > 0);
  const hasValidProfile = profilePages.some((page) => page.data?.results.some((profile) => profile.valid) ?? false);
  const hasRun =
    (runs.data?.results.some((run) => LONG_RUN_KINDS.has(run.kind)) ?? false) ||
    profilePages.some((page) => page.data?.results.some((profile) => profile.origin === "tracer") ?? false);
  const projectTarget = projectWithProfiles ?? firstProject;

  const keyList = keys.data?.results ?? [];
  const usableKey = keyList.some((key) => key.last_check_ok !== false);
  const failedKey = keyList.find((key) => key.last_check_ok === false);
  const connectorList = connectors.data?.results ?? [];
  const tests = connectorTests.data?.results ?? [];
  const connectorStates = connectorList.map((connector) => ({
    connector,
    state: connectorTestState(connector, tests),
  }));
  const testedConnector = connectorStates.some(({ state }) => state === "passed");
  const connectorToFix =
    connectorStates.find(({ state }) => state === "failed") ??
    connectorStates.find(({ state }) => state === "untested");

  const steps: SetupStep[] = [
    {
      id: "key",
      title: "Add an LLM API key",
      description: "TRACER and SENSEI talk to an LLM with your key. It is stored encrypted and never shown again.",
      done: usableKey,
      ...(!usableKey &&
        failedKey && { note: `The last test of ${failedKey.name} failed: fix the key or add another, then test it.` }),
      to: paths.keys,
      action: failedKey && !usableKey ? "Fix the key" : "Add a key",
    },
    {
      id: "connector",
      title: "Connect your chatbot",
      description: "A connector says how to reach the chatbot under test. Test it before you go on.",
      done: testedConnector,
      ...(!testedConnector &&
        connectorToFix && {
          note:
            connectorToFix.state === "failed"
              ? `The last connection test of ${connectorToFix.connector.name} failed: fix its settings and test it again.`
              : `${connectorToFix.connector.name} has not passed a connection test yet: test it.`,
        }),
      to: connectorToFix ? paths.connector(connectorToFix.connector.id) : paths.connectors,
      action: connectorToFix ? "Test the connector" : "Create a connector",
    },
    {
      id: "project",
      title: "Create a project",
      description: "A project puts a connector, a key and the models to use together.",
      done: (projects.data?.count ?? 0) > 0,
      to: paths.projects,
      action: "Create a project",
    },
    {
      id: "profiles",
      title: "Write or generate a valid profile",
      description: "Profiles describe simulated users. Write one, upload YAML files, or let TRACER explore.",
      done: hasValidProfile,
      to: projectTarget ? paths.testCenter(projectTarget.id) : paths.projects,
      action: "Open the test center",
    },
    {
      id: "run",
      title: "Start a first run",
      description: "Explore the chatbot with TRACER or test it with your profiles using SENSEI.",
      done: hasRun,
      to: projectTarget ? paths.testCenter(projectTarget.id) : paths.projects,
      action: "Start a run",
    },
  ];

  const queries = [keys, connectors, connectorTests, projects, runs, ...profilePages];

  const { pathname } = useLocation();
  const askAgainIfOld = useEffectEvent(() => {
    const now = Date.now();
    for (const query of queries) {
      const answeredAt = Math.max(query.dataUpdatedAt, query.errorUpdatedAt);
      if (query.fetchStatus === "idle" && answeredAt > 0 && now - answeredAt >= SETUP_FRESH_MS) {
        void query.refetch({ cancelRefetch: false });
      }
    }
  });
  useEffect(() => {
    askAgainIfOld();
  }, [pathname]);

  return {
    steps,
    doneCount: steps.filter((step) => step.done).length,
    next: steps.find((step) => !step.done) ?? null,
    isPending: queries.some((query) => query.isPending),
    isError: queries.some((query) => query.isError),
    refetch: () => Promise.all(queries.map((query) => query.refetch())),
  };
}
