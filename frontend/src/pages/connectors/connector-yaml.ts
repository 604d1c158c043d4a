/** Connector files for the YAML mode: the starting text, and the editor schema of one technology. */
import type { Connector, Technology } from "../../api/connectors";
import { toYaml } from "../../lib/yaml-emit";

/** The technology line, then the stored parameters (editing) or the technology's example (new). */
export function connectorYaml(technology: Technology, connector: Connector | null): string {
  const params = connector?.technology === technology.name ? (connector.params ?? {}) : technology.example;
  return `technology: ${technology.name}\n${toYaml(params)}`;
}

/** The technology's parameter schema with `technology` added at the top, as a connector file has it. */
export function connectorFileSchema(technology: Technology): Record<string, unknown> {
  const properties = technology.jsonSchema.properties;
  return {
    ...technology.jsonSchema,
    properties: {
      technology: { const: technology.name, description: "Which protocol this connector speaks." },
      ...(typeof properties === "object" && properties !== null ? properties : {}),
    },
  };
}
