/**
 * How the snapshot's public components take a change that named some of them, without reading
 * them all again: in place while none came, went or moved in the order; placed by the order the
 * database gives otherwise; all read again when that order names one the snapshot never read.
 */
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"

import { Component, type ComponentId } from "../../src/domain/Component.js"
import { componentsKeepOrder, patchComponents } from "../../src/public/state/PublicStatus.js"

const at = DateTime.makeUnsafe(Date.UTC(2026, 11, 1))
const component = (id: string, name: string, displayOrder: number, status: Component["status"] = "operational") =>
  new Component({
    id: id as ComponentId,
    name,
    description: "",
    status,
    displayOrder,
    isPublic: true,
    groupId: null,
    createdAt: at,
    updatedAt: at
  })

const held = [component("a", "API", 0), component("b", "Billing", 1), component("w", "Web", 2)]
const ids = (components: ReadonlyArray<Component> | undefined) => components?.map((c) => c.id)

describe("patching the public components", () => {
  it("replaces a component in its place when only its status changed", () => {
    const changed = [component("b", "Billing", 1, "major_outage")]
    expect(componentsKeepOrder(held, ["b"], changed)).toBe(true)
    const patched = patchComponents(held, changed)!
    expect(ids(patched)).toEqual(["a", "b", "w"])
    expect(patched[1]!.status).toBe("major_outage")
    // A private component named by a change is in neither list: nothing moves.
    expect(componentsKeepOrder(held, ["private"], [])).toBe(true)
  })

  it("places a new, renamed, reordered or hidden component by the database's order", () => {
    expect(componentsKeepOrder(held, ["n"], [component("n", "New", 3)])).toBe(false)
    expect(componentsKeepOrder(held, ["a"], [component("a", "Zed", 0)])).toBe(false)
    expect(componentsKeepOrder(held, ["a"], [component("a", "API", 9)])).toBe(false)
    expect(componentsKeepOrder(held, ["w"], [])).toBe(false)
    expect(ids(patchComponents(held, [component("a", "API", 9)], ["b", "w", "a"]))).toEqual(["b", "w", "a"])
    expect(ids(patchComponents(held, [], ["a", "b"]))).toEqual(["a", "b"])
    expect(ids(patchComponents(held, [component("n", "New", 3)], ["a", "b", "w", "n"]))).toEqual(["a", "b", "w", "n"])
  })

  it("gives up when the order names a component neither held nor read again", () => {
    expect(patchComponents(held, [], ["a", "b", "w", "made-public-elsewhere"])).toBeUndefined()
  })
})
