import { MantineProvider } from "@mantine/core";
import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SafeHtml, sanitizeHtml } from "./SafeHtml";

function renderHtml(html: string) {
  const { container } = render(
    <MantineProvider>
      <SafeHtml html={html} data-testid="safe" />
    </MantineProvider>,
  );
  const root = container.querySelector("[data-testid=safe]");
  if (root === null) throw new Error("SafeHtml rendered nothing");
  return root;
}

describe("SafeHtml", () => {
  it("keeps harmless formatting", () => {
    const root = renderHtml('<p>Hello <strong>there</strong>, see <a href="https://example.com/">this</a>.</p>');

    expect(root.querySelector("strong")).toHaveTextContent("there");
    expect(root.querySelector("a")).toHaveAttribute("href", "https://example.com/");
  });

  it("removes scripts", () => {
    const root = renderHtml("<p>hi</p><script>window.pwned = true</script><svg><script>alert(1)</script></svg>");

    expect(root.querySelector("script")).toBeNull();
    expect(root.innerHTML).not.toContain("pwned");
    expect(root).toHaveTextContent("hi");
  });

  it("removes event handlers and javascript: links", () => {
    const root = renderHtml(
      '<img src="x" onerror="alert(1)"><a href="javascript:alert(1)" onclick="alert(2)">x</a>' +
        '<div onmouseover="alert(3)" style="position:fixed">y</div>',
    );

    const everyElement = [...root.querySelectorAll("*")];
    const attributes = everyElement.flatMap((el) => el.getAttributeNames());
    expect(attributes.filter((name) => name.startsWith("on"))).toEqual([]);
    expect(attributes).not.toContain("style");
    expect(root.querySelector("a")?.getAttribute("href") ?? "").not.toMatch(/javascript:/i);
  });

  it("removes forms and iframes", () => {
    expect(
      sanitizeHtml(
        '<form action="https://evil.example"><input name="password"></form><iframe src="https://evil.example"></iframe>ok',
      ),
    ).toBe("ok");
  });
});
