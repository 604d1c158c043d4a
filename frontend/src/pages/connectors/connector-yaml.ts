/** Connector files for the YAML mode: the starting text, and the editor schema of one technology. */
import type { Connector, Technology } from "../../api/workspace/connectors";
import { toYaml } from "../../lib/yaml-emit";

/**
 * The technology line, the connector's volatile patterns (editing, when it has some), then the stored parameters
 * (editing) or the technology's example (new).
 */
export function connectorYaml(technology: Technology, connector: Connector | null): string {
  const params = connector?.technology === technology.name ? (connector.params ?? {}) : technology.example;
  const volatile = connector?.volatile ?? [];
  return `technology: ${technology.name}\n${volatile.length > 0 ? toYaml({ volatile }) : ""}${toYaml(params)}`;
}

/** The technology's parameter schema with `technology` added at the top, as a connector file has it. */
export function connectorFileSchema(technology: Technology): Record<string, unknown> {
  const properties = technology.json_schema.properties;
  return {
    ...technology.json_schema,
    properties: {
      technology: { const: technology.name, description: "Which protocol this connector speaks." },
      volatile: {
        type: "array",
        items: { type: "string" },
        maxItems: 20,
        description:
          "Regular expressions of values the chatbot changes in every conversation (a ticket number): a re-run ignores them when comparing replies.",
      },
      ...(typeof properties === "object" && properties !== null ? properties : {}),
    },
  };
}
