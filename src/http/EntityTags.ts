/**
 * Entity tags of the admin resources (RFC 9110 §8.8.3) and the `If-Match` precondition
 * (§13.1.1): what an ETag is made of, how the header is read, and when it matches.
 */
import { createHash } from "node:crypto"

/**
 * The strong ETag of a JSON representation: its SHA-256 in base64url, quoted. Computed from the
 * bytes a GET answers, so it changes exactly when what a reader sees changes.
 */
export const entityTagOf = (json: string | Uint8Array): string =>
  `"${createHash("sha256").update(json).digest("base64url")}"`

/** An entity tag as a client sent it: weak (`W/"…"`) or strong, with its quotes. */
export interface EntityTag {
  readonly weak: boolean
  readonly opaque: string
}

/** `If-Match: *` (any current representation), or the tags a client sent. */
export type IfMatch =
  | { readonly _tag: "Any" }
  | { readonly _tag: "Tags"; readonly tags: ReadonlyArray<EntityTag> }

/**
 * Reads an `If-Match` field value: `*`, or a comma list of entity tags (RFC 9110 §8.8.3: an
 * opaque tag is quoted and may itself hold commas). Empty list elements are skipped (§5.6.1).
 * Anything else is `undefined`: a client that sent a header it did not mean.
 */
export const parseIfMatch = (value: string): IfMatch | undefined => {
  if (value.trim() === "*") return { _tag: "Any" }
  const tags: Array<EntityTag> = []
  let i = 0
  const skip = (chars: string) => {
    while (i < value.length && chars.includes(value[i]!)) i++
  }
  skip(" \t,")
  while (i < value.length) {
    const weak = value.startsWith("W/", i)
    if (weak) i += 2
    if (value[i] !== "\"") return undefined
    const end = value.indexOf("\"", i + 1)
    if (end < 0) return undefined
    const opaque = value.slice(i, end + 1)
    // etagc: %x21 / %x23-7E / obs-text; no control characters, spaces or DEL.
    if (/[\x00-\x20\x7f]/.test(opaque)) return undefined
    tags.push({ weak, opaque })
    i = end + 1
    skip(" \t")
    if (i < value.length && value[i] !== ",") return undefined
    skip(" \t,")
  }
  return tags.length === 0 ? undefined : { _tag: "Tags", tags }
}

/**
 * Whether `If-Match` holds for a resource whose current strong ETag is `current`: `*` always (the
 * resource exists), a list when one of its tags is strongly equal to it. A weak tag never matches:
 * If-Match compares strongly (§13.1.1).
 */
export const ifMatchHolds = (condition: IfMatch, current: string): boolean =>
  condition._tag === "Any" || condition.tags.some((tag) => !tag.weak && tag.opaque === current)
