import { describe, expect, it } from "vitest";
import { chunkEnd } from "./transcripts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("chunkEnd", () => {
  it("cuts after the last line break within the target size", () => {
    const data = bytes("aaaa\nbbbb\ncccc\n");
    expect(chunkEnd(data, 0, 12)).toBe(10);
    expect(chunkEnd(data, 10, 12)).toBe(15);
  });

  it("runs on to the next line break when one line is longer than the target", () => {
    const data = bytes("aaaaaaaaaa\nbb\n");
    expect(chunkEnd(data, 0, 4)).toBe(11);
  });

  it("never cuts a multi-byte character: a line break byte is never inside one", () => {
    const data = bytes("ñññ\nééé\n");
    const end = chunkEnd(data, 0, 8);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(data.slice(0, end))).toBe("ñññ\n");
  });
});
