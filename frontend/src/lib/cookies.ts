/** Reading the few cookies scripts may see (the CSRF token, the "kept signed in" hint); none holds a credential. */

/** The value of cookie `name` visible to this page, or null. */
export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      return decodeURIComponent(part.slice(separator + 1).trim());
    }
  }
  return null;
}
