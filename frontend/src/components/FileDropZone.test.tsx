import { MantineProvider } from "@mantine/core";
import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { FileDropZone } from "./FileDropZone";

describe("file drop zone", () => {
  it("takes dropped files with an accepted extension and size, and reports the others", () => {
    const onFiles = vi.fn();
    const onReject = vi.fn();
    render(
      <MantineProvider>
        <FileDropZone
          extensions={[".yaml", ".yml"]}
          maxBytes={10}
          onFiles={onFiles}
          onReject={onReject}
          buttonLabel="Upload"
          hint="YAML only"
        />
      </MantineProvider>,
    );
    const files = [
      new File(["a: 1"], "ok.YML"),
      new File(["hello"], "notes.txt"),
      new File(["a: 12345678901"], "big.yaml"),
    ];
    fireEvent.drop(
      screen.getByRole("button", { name: "Upload" }).closest("div[data-dragging], .mantine-Paper-root") ??
        document.body,
      {
        dataTransfer: { files },
      },
    );

    expect(onFiles).toHaveBeenCalledWith([files[0]]);
    expect(onReject).toHaveBeenCalledWith(["notes.txt: not a .yaml or .yml file", "big.yaml: larger than 10 bytes"]);
    expect(screen.getByRole("button", { name: "Upload" })).toHaveAccessibleDescription("YAML only");
  });
});
