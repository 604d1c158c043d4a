/** The server's validation problems under an editor: each one a line, its position a button that jumps there. */
import { Badge, Group, List, Paper, Stack, Text, UnstyledButton } from "@mantine/core";
import type { ValidationProblem } from "../../api/workspace/problems";
import { counted } from "../../lib/text";

interface ProblemListProps {
  id?: string;
  problems: readonly ValidationProblem[];
  /** Moves the editor's cursor to the problem. */
  onGoTo?: (line: number, column: number) => void;
  /** Shown when there is nothing to report (omit to show nothing). */
  validMessage?: string;
}

function position(problem: ValidationProblem): string {
  if (problem.line === null) return "";
  return problem.column === null
    ? `Line ${String(problem.line)}`
    : `Line ${String(problem.line)}, column ${String(problem.column)}`;
}

export function ProblemList({ id, problems, onGoTo, validMessage }: ProblemListProps) {
  if (problems.length === 0) {
    return validMessage ? (
      <Text id={id} size="sm" c="teal" role="status">
        {validMessage}
      </Text>
    ) : null;
  }
  const errors = problems.filter((p) => p.severity === "error").length;
  const warnings = problems.length - errors;
  const summary = [errors > 0 ? counted(errors, "error") : "", warnings > 0 ? counted(warnings, "warning") : ""]
    .filter(Boolean)
    .join(", ");

  return (
    <Paper
      id={id}
      component="section"
      aria-label="Problems"
      withBorder
      p="sm"
      radius="md"
      style={{ borderColor: `var(--mantine-color-${errors > 0 ? "red" : "yellow"}-filled)` }}
    >
      <Text size="sm" fw={600} c={errors > 0 ? "red" : "yellow"} mb={6}>
        {summary}
      </Text>
      <List spacing={6} size="sm" listStyleType="none" aria-label="Problems found">
        {problems.map((problem, index) => {
          const where = position(problem);
          return (
            <List.Item key={`${String(index)}-${problem.message}`}>
              <Stack gap={2}>
                <Group gap="xs" wrap="nowrap" align="baseline">
                  <Badge size="xs" color={problem.severity === "error" ? "red" : "yellow"} variant="filled">
                    {problem.severity}
                  </Badge>
                  {where !== "" &&
                    (onGoTo && problem.line !== null ? (
                      <UnstyledButton
                        fz="sm"
                        td="underline"
                        onClick={() => {
                          onGoTo(problem.line ?? 1, problem.column ?? 1);
                        }}
                        aria-label={`Go to ${where}`}
                      >
                        {where}
                      </UnstyledButton>
                    ) : (
                      <Text size="sm" span>
                        {where}
                      </Text>
                    ))}
                  <Text size="sm" span>
                    {problem.message}
                  </Text>
                </Group>
                {(problem.hint ?? problem.path) && (
                  <Text size="xs" c="dimmed" pl={4}>
                    {[problem.path ? `at ${problem.path}` : "", problem.hint ?? ""].filter(Boolean).join(" — ")}
                  </Text>
                )}
              </Stack>
            </List.Item>
          );
        })}
      </List>
    </Paper>
  );
}
