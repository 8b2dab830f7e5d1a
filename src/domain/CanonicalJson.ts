/**
 * One spelling per JSON value, so two request bodies that mean the same (whitespace, the order of
 * an object's keys, `1.0` for `1`, `\u0041` for `A`) compare equal: objects with their keys
 * sorted by UTF-16 code units (as RFC 8785 does), numbers and strings as JSON.stringify writes
 * them, no whitespace. An object's repeated key counts once, with its last value, as the
 * handler reads it.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`
}

/**
 * A request body as compared: the canonical form of its JSON, tagged so that it cannot meet a
 * body that is not JSON (compared as sent) or an empty one. A body nested too deeply to walk is
 * compared as sent too: the answer stays a 4xx from the handler, never a crash here.
 */
export const canonicalBody = (text: string): string => {
  if (text === "") return "empty"
  try {
    return `json:${canonicalJson(JSON.parse(text))}`
  } catch {
    return `text:${text}`
  }
}
