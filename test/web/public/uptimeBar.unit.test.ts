/**
 * The uptime bar's cells on their own: each day's uptime and the incidents that touched the
 * component that day, and which bars a render draws again.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime } from "effect"

import type { PublicComponent } from "../../../src/domain/Component.js"
import type { DailyBucket } from "../../../src/web/public/UptimeBar.js"
import { uptimeBarRenderer } from "../../../src/web/public/UptimeBar.js"

const day = 86_400_000
const now = Date.UTC(2026, 10, 23, 12)
const today = Date.UTC(2026, 10, 23)
const at = (millis: number) => DateTime.unsafeMake(millis)
const component = (id: string) => ({ id, name: id }) as PublicComponent

const incident = (title: string, componentIds: ReadonlyArray<string>, from: number, to: number | null) => ({
  title,
  componentIds,
  createdAt: at(from),
  resolvedAt: to === null ? null : at(to)
})

/** The text of each of the 90 cells, oldest first. */
const cellTexts = (markup: string) =>
  [...markup.matchAll(/<li class=(\w+) tabindex=-1><span>([^<]*)<\/span>/g)].map((cell) => cell[2]!)

describe("uptime bar", () => {
  it("lists on each day the incidents that touched the component then, and only those", () => {
    const bars = uptimeBarRenderer()(
      [{ componentId: "api", bucketStart: new Date(today - day), observedSeconds: 86_400, downtimeSeconds: 864 }],
      [
        // Named twice: listed once.
        incident("Database failover", ["api", "api"], today - 2 * day + 3_600_000, today - day + 3_600_000),
        incident("Web only", ["web"], today - day, today),
        // Still open: it touches every day up to today.
        incident("Slow & <flaky>", ["web", "api"], today + 3_600_000, null)
      ],
      now
    )
    const api = cellTexts(bars(component("api")).markup)
    expect(api).toHaveLength(90)
    expect(api.at(-3)).toBe("21 Nov 2026: no data; incident: Database failover")
    expect(api.at(-2)).toBe("22 Nov 2026: 99 % uptime; incident: Database failover")
    expect(api.at(-1)).toBe("23 Nov 2026: no data; incident: Slow &amp; &lt;flaky&gt;")
    expect(api[0]).toBe("26 Aug 2026: no data")

    const web = cellTexts(bars(component("web")).markup)
    expect(web.at(-2)).toBe("22 Nov 2026: no data; incident: Web only")
    expect(web.at(-1)).toBe("23 Nov 2026: no data; incidents: Web only; Slow &amp; &lt;flaky&gt;")
    expect(cellTexts(bars(component("db")).markup).filter((text) => text.includes("incident"))).toEqual([])
  })

  it("draws again only the bars whose component or incidents changed, until the buckets are read again", () => {
    const draw = uptimeBarRenderer()
    const buckets: ReadonlyArray<DailyBucket> = [{
      componentId: "api",
      bucketStart: new Date(today),
      observedSeconds: 3_600,
      downtimeSeconds: 0
    }]
    const open = incident("Errors", ["api"], today + 3_600_000, null)
    const first = draw(buckets, [open], now)
    const [api, web] = [first(component("api")), first(component("web"))]

    // An incident update that changes no title or time (the usual one): every bar is reused.
    const second = draw(buckets, [{ ...open }], now)
    expect(second(component("api"))).toBe(api)
    expect(second(component("web"))).toBe(web)

    // The incident resolved: only its component's bar is drawn again.
    const third = draw(buckets, [{ ...open, resolvedAt: at(now) }], now)
    expect(third(component("web"))).toBe(web)
    expect(third(component("api"))).not.toBe(api)
    // A renamed component is drawn again with its new name.
    expect(third({ ...component("web"), name: "Website" }).markup).toContain("Daily uptime of Website")

    // Buckets read again (a minute later): everything is drawn from them.
    const fourth = draw([...buckets], [open], now)
    const redrawn = fourth(component("web"))
    expect(redrawn).not.toBe(web)
    expect(redrawn.markup).toBe(web.markup)
  })
})
