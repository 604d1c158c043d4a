import { Alert, List } from "@mantine/core";
import { ApiError, splitFieldErrors } from "../api/errors";

interface ServerErrorAlertProps {
  error: Error | null;
  title: string;
  /** Fields the form shows messages under; messages for them are left out of the alert. */
  formFields?: readonly string[];
}

/**
 * The alert above a form for what the server said. Field messages belong under their inputs
 * (`form.setErrors(splitFieldErrors(...).byField)`); this shows the rest, or the server's `detail`.
 */
export function ServerErrorAlert({ error, title, formFields = [] }: ServerErrorAlertProps) {
  if (error === null) return null;

  let messages: string[];
  if (error instanceof ApiError) {
    const { byField, other } = splitFieldErrors(error, formFields);
    const shownUnderFields = Object.keys(byField).length > 0;
    messages = other.length > 0 ? other : shownUnderFields ? [] : [error.detail];
  } else {
    messages = ["Something went wrong. Please try again."];
  }
  if (messages.length === 0) return null;

  return (
    <Alert color="red" variant="light" title={title}>
      {messages.length === 1 ? (
        messages[0]
      ) : (
        <List size="sm">
          {messages.map((message) => (
            <List.Item key={message}>{message}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
