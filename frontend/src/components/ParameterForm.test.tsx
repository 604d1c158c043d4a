import { MantineProvider } from "@mantine/core";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import type { TechnologyParameter } from "../api/workspace/connectors";
import { initialParameterValues, ParameterForm, parameterValuesToParams, type ParameterValues } from "./ParameterForm";

const PARAMETERS: TechnologyParameter[] = [
  { name: "base_url", type: "string", required: true, default: null, secret: false, description: "The server." },
  { name: "token", type: "string", required: true, default: null, secret: true, description: "Bearer token." },
  { name: "timeout", type: "number", required: false, default: 60, secret: false, description: "Seconds." },
  { name: "retries", type: "integer", required: false, default: null, secret: false, description: "" },
  { name: "verbose", type: "boolean", required: false, default: false, secret: false, description: "" },
  { name: "headers", type: "object", required: false, default: null, secret: false, description: "Extra headers." },
];

function Harness({ secretsSet = [] as string[], stored = null as Record<string, unknown> | null }) {
  const [values, setValues] = useState<ParameterValues>(() => initialParameterValues(PARAMETERS, stored));
  return (
    <MantineProvider>
      <ParameterForm
        parameters={PARAMETERS}
        values={values}
        secretsSet={secretsSet}
        onChange={(name, value) => {
          setValues((current) => ({ ...current, [name]: value }));
        }}
      />
      <output data-testid="params">{JSON.stringify(parameterValuesToParams(PARAMETERS, values, secretsSet))}</output>
    </MantineProvider>
  );
}

describe("parameter form generator", () => {
  it("renders one labelled input per parameter, typed, with secrets as password fields", () => {
    render(<Harness />);

    expect(screen.getByLabelText(/^base_url/)).not.toHaveAttribute("type", "password");
    expect(screen.getByLabelText(/^token/)).toHaveAttribute("type", "password");
    expect(screen.getByLabelText(/^timeout/)).toHaveValue("60");
    expect(screen.getByRole("checkbox", { name: "verbose" })).not.toBeChecked();
    expect(screen.getByLabelText(/^headers/).tagName).toBe("TEXTAREA");
    expect(screen.getByLabelText(/^base_url/)).toBeRequired();
  });

  it("never shows a stored secret and says that blank keeps it", () => {
    render(<Harness secretsSet={["token"]} stored={{ base_url: "http://rasa:5005", token: "should-not-appear" }} />);

    const token = screen.getByLabelText(/^token/);
    expect(token).toHaveValue("");
    expect(token).toHaveAttribute("placeholder", "set — leave blank to keep");
    expect(token).not.toBeRequired();
    expect(screen.getByLabelText(/^base_url/)).toHaveValue("http://rasa:5005");
    expect(document.body.textContent).not.toContain("should-not-appear");
  });

  it("turns the inputs into typed params and leaves blank optional fields and kept secrets out", async () => {
    const user = userEvent.setup();
    render(<Harness secretsSet={["token"]} />);

    await user.type(screen.getByLabelText(/^base_url/), "http://rasa:5005");
    await user.clear(screen.getByLabelText(/^timeout/));
    await user.type(screen.getByLabelText(/^timeout/), "12.5");
    await user.click(screen.getByRole("checkbox", { name: "verbose" }));
    await user.click(screen.getByLabelText(/^headers/));
    await user.paste('{"X-Team": "qa"}');

    const out = JSON.parse(screen.getByTestId("params").textContent) as unknown;
    expect(out).toEqual({
      params: { base_url: "http://rasa:5005", timeout: 12.5, verbose: true, headers: { "X-Team": "qa" } },
      errors: {},
    });
  });

  it("reports missing required values, bad numbers and bad JSON per field", () => {
    const values: ParameterValues = {
      base_url: "",
      token: "",
      timeout: "soon",
      retries: "1.5",
      verbose: false,
      headers: "{",
    };
    expect(parameterValuesToParams(PARAMETERS, values).errors).toEqual({
      base_url: "Required.",
      token: "Required.",
      timeout: "Enter a number.",
      retries: "Enter a whole number.",
      headers: "This is not valid JSON.",
    });
    expect(parameterValuesToParams(PARAMETERS, { ...values, headers: "[1]" }).errors.headers).toBe(
      "Enter a JSON object.",
    );
  });
});
