/** Hands a downloaded file to the browser as a download (a plain link would not carry the session's token). */
export function saveBlob(data: Blob, filename: string): void {
  const url = URL.createObjectURL(data);
  try {
    const link = document.createElement("a");
    link.href = url;
    link.download = filename;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // Let the browser start the download before the URL goes away.
    setTimeout(() => {
      URL.revokeObjectURL(url);
    }, 10_000);
  }
}

/** A Blob from any realm (the test environment's fetch makes its own; `instanceof Blob` would say no). */
export function isBlob(value: unknown): value is Blob {
  return typeof value === "object" && value !== null && "size" in value && "arrayBuffer" in value;
}
