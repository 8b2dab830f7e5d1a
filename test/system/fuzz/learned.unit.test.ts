/**
 * What a fuzz run learns from its answers (learned.ts): an entity tag is called stale only when
 * a read that surely came later saw another one, since a stale `If-Match` that succeeds is a
 * finding and requests overlap.
 */
import { describe, expect, it } from "vitest"

import { Learned } from "./learned.js"

const path = "/api/v1/admin/components/c1"

/** Reads of `path` with their ticks: [tag, sent, answered]. */
const readsOf = (...reads: Array<[string, number, number]>) => {
  const learned = new Learned()
  for (const [tag, sent, answered] of reads) learned.read(path, tag, sent, answered)
  return learned
}

describe("entity tags", () => {
  it("one a later read saw change is stale; the last answered is current", () => {
    const learned = readsOf(["\"a\"", 1, 2], ["\"b\"", 3, 4])
    expect(learned.staleEntityTagsOf(path)).toEqual(["\"a\""])
    expect(learned.entityTagOf(path)).toBe("\"b\"")
  })

  it("overlapping reads prove nothing: the second may have read first", () => {
    expect(readsOf(["\"a\"", 1, 3], ["\"b\"", 2, 4]).staleEntityTagsOf(path)).toEqual([])
  })

  it("the same tag again, or a weak one, is no change", () => {
    expect(readsOf(["\"a\"", 1, 2], ["\"a\"", 3, 4]).staleEntityTagsOf(path)).toEqual([])
    expect(readsOf(["\"a\"", 1, 2], ["W/\"a-gzip\"", 3, 4]).staleEntityTagsOf(path)).toEqual([])
  })

  it("a tag that comes back is no longer stale", () => {
    const learned = readsOf(["\"a\"", 1, 2], ["\"b\"", 3, 4], ["\"a\"", 5, 6])
    expect(learned.staleEntityTagsOf(path)).toEqual(["\"b\""])
  })

  it("a write's tag is current but decides nothing about staleness", () => {
    const learned = readsOf(["\"a\"", 1, 2])
    learned.entityTag(path, "\"w\"")
    expect(learned.entityTagOf(path)).toBe("\"w\"")
    expect(learned.staleEntityTagsOf(path)).toEqual([])
  })
})

describe("cursors", () => {
  it("are kept by list, the latest few, and offered to the other lists to refuse", () => {
    const learned = new Learned()
    for (let i = 0; i < 20; i++) learned.cursor("components.list", `c${i}`)
    learned.cursor("monitors.list", "m0")
    expect(learned.cursorsOf("components.list")).toHaveLength(16)
    expect(learned.cursorsOf("components.list").at(-1)).toBe("c19")
    expect(learned.cursorsBesides("monitors.list")).toContain("c19")
    expect(learned.cursorsBesides("monitors.list")).not.toContain("m0")
  })
})
