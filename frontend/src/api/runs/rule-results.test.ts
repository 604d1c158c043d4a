import { describe, expect, it } from "vitest";
import { setRuleActive } from "./rule-results";

const RULE = `# Every completed order tells the user its price.
name: price_is_reported
active: true # on by default
conversations: 1
when: outputs.price is not None
then: outputs.price is not None
on-error: "No price was given for a {inputs.size} pizza"
`;

describe("setRuleActive", () => {
  it("changes only the active key, keeping comments, order and quoting", () => {
    const off = setRuleActive(RULE, false);
    expect(off).toBe(RULE.replace("active: true # on by default", "active: false # on by default"));
    expect(setRuleActive(off, true)).toBe(RULE);
  });

  it("adds the key when the rule does not have it", () => {
    const text = "name: r\nthen: true\n";
    expect(setRuleActive(text, false)).toBe("name: r\nthen: true\nactive: false\n");
  });

  it("refuses a text that is not a YAML mapping", () => {
    expect(() => setRuleActive("name: [unclosed", true)).toThrow(/not a valid YAML mapping/);
    expect(() => setRuleActive("- a list\n", true)).toThrow(/not a valid YAML mapping/);
  });
});
