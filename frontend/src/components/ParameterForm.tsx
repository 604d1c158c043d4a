/**
 * A form generated from a connector technology's parameter list: one labelled input per parameter, typed
 * by the parameter's `type`. Secret parameters are password inputs (or, for objects, text areas) that are
 * never filled from the server: when a secret is already stored, the field says so and blank keeps it.
 */
import { Checkbox, PasswordInput, Stack, Textarea, TextInput } from "@mantine/core";
import type { TechnologyParameter } from "../api/workspace/connectors";

/** What the inputs hold: text for everything but booleans (numbers and JSON are parsed on submit). */
export type ParameterValues = Record<string, string | boolean>;
export type ParameterErrors = Record<string, string>;

function toText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value, null, 2);
}

/** Initial input values: stored values for an existing connector, else defaults; secrets always blank. */
export function initialParameterValues(
  parameters: readonly TechnologyParameter[],
  stored: Record<string, unknown> | null,
): ParameterValues {
  const values: ParameterValues = {};
  for (const parameter of parameters) {
    const source = stored === null ? parameter.default : stored[parameter.name];
    if (parameter.type === "boolean") values[parameter.name] = source === true;
    else values[parameter.name] = parameter.secret ? "" : toText(source);
  }
  return values;
}

/**
 * Turns input values into `params` for the API, or field errors. Empty optional fields are left out (the
 * server applies its defaults), and so are empty secrets (the server keeps the stored value).
 */
export function parameterValuesToParams(
  parameters: readonly TechnologyParameter[],
  values: ParameterValues,
  secretsSet: readonly string[] = [],
): { params: Record<string, unknown>; errors: ParameterErrors } {
  const params: Record<string, unknown> = {};
  const errors: ParameterErrors = {};
  for (const parameter of parameters) {
    const raw = values[parameter.name];
    if (parameter.type === "boolean") {
      params[parameter.name] = raw === true;
      continue;
    }
    const text = typeof raw === "string" ? raw.trim() : "";
    if (text === "") {
      const kept = parameter.secret && secretsSet.includes(parameter.name);
      if (parameter.required && !kept) errors[parameter.name] = "Required.";
      continue;
    }
    switch (parameter.type) {
      case "number":
      case "integer": {
        const number = Number(text);
        if (!Number.isFinite(number)) errors[parameter.name] = "Enter a number.";
        else if (parameter.type === "integer" && !Number.isInteger(number))
          errors[parameter.name] = "Enter a whole number.";
        else params[parameter.name] = number;
        break;
      }
      case "object":
      case "array": {
        try {
          const parsed: unknown = JSON.parse(text);
          const isArray = Array.isArray(parsed);
          const fits = parameter.type === "array" ? isArray : typeof parsed === "object" && parsed !== null && !isArray;
          if (fits) params[parameter.name] = parsed;
          else errors[parameter.name] = parameter.type === "array" ? "Enter a JSON list." : "Enter a JSON object.";
        } catch {
          errors[parameter.name] = "This is not valid JSON.";
        }
        break;
      }
      default:
        params[parameter.name] = text;
    }
  }
  return { params, errors };
}

interface ParameterFormProps {
  parameters: readonly TechnologyParameter[];
  values: ParameterValues;
  onChange: (name: string, value: string | boolean) => void;
  errors?: ParameterErrors;
  /** Secret parameters that already have a stored value. */
  secretsSet?: readonly string[];
  disabled?: boolean;
}

const KEEP_SECRET = "set — leave blank to keep";

function describe(parameter: TechnologyParameter, stored: boolean): string {
  const parts = [parameter.description];
  if (parameter.type === "object" || parameter.type === "array") parts.push("JSON.");
  if (parameter.secret) parts.push(stored ? "Stored encrypted; never shown again." : "Stored encrypted.");
  if (!parameter.required && !parameter.secret && parameter.default !== null && parameter.default !== undefined)
    parts.push(`Default: ${toText(parameter.default)}.`);
  return parts.filter(Boolean).join(" ");
}

export function ParameterForm({
  parameters,
  values,
  onChange,
  errors = {},
  secretsSet = [],
  disabled = false,
}: ParameterFormProps) {
  return (
    <Stack gap="sm">
      {parameters.map((parameter) => {
        const name = parameter.name;
        const stored = parameter.secret && secretsSet.includes(name);
        const common = {
          label: name,
          description: describe(parameter, stored),
          error: errors[name],
          disabled,
          required: parameter.required && !stored,
        };
        const text = typeof values[name] === "string" ? values[name] : "";
        const change = (value: string) => {
          onChange(name, value);
        };
        if (parameter.type === "boolean") {
          return (
            <Checkbox
              key={name}
              label={name}
              description={common.description}
              error={common.error}
              disabled={disabled}
              checked={values[name] === true}
              onChange={(event) => {
                onChange(name, event.currentTarget.checked);
              }}
            />
          );
        }
        if (parameter.type === "object" || parameter.type === "array") {
          return (
            <Textarea
              key={name}
              {...common}
              autosize
              minRows={parameter.secret ? 2 : 3}
              maxRows={16}
              ff="monospace"
              spellCheck={false}
              placeholder={stored ? KEEP_SECRET : parameter.type === "array" ? "[ ]" : "{ }"}
              value={text}
              onChange={(event) => {
                change(event.currentTarget.value);
              }}
            />
          );
        }
        if (parameter.secret) {
          return (
            <PasswordInput
              key={name}
              {...common}
              autoComplete="new-password"
              placeholder={stored ? KEEP_SECRET : undefined}
              value={text}
              onChange={(event) => {
                change(event.currentTarget.value);
              }}
            />
          );
        }
        return (
          <TextInput
            key={name}
            {...common}
            inputMode={parameter.type === "number" || parameter.type === "integer" ? "decimal" : undefined}
            value={text}
            onChange={(event) => {
              change(event.currentTarget.value);
            }}
          />
        );
      })}
    </Stack>
  );
}
