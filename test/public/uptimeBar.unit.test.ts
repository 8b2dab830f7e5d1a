/**
 * The uptime bar's cells on their own: each day's uptime and the incidents that touched the
 * component that day, days before the component existed, a group's bar, and which bars a render
 * draws again.
 */
import { describe, expect, it } from "@effect/vitest"
import { DateTime } from "effect"

import type { ComponentStatus } from "../../src/domain/Component.js"
import type { BarComponent, DailyBucket } from "../../src/public/render/UptimeBar.js"
import { uptimeBarRenderer } from "../../src/public/render/UptimeBar.js"

const day = 86_400_000
const now = Date.UTC(2026, 10, 23, 12)
const today = Date.UTC(2026, 10, 23)
const at = (millis: number) => DateTime.makeUnsafe(millis)
const component = (id: string, status: ComponentStatus = "operational", createdAt?: number): BarComponent => ({
  id,
  name: id,
  status,
  createdAt
})

const incident = (title: string, componentIds: ReadonlyArray<string>, from: number, to: number | null) => ({
  title,
  componentIds,
  createdAt: at(from),
  resolvedAt: to === null ? null : at(to)
})

/** The text of each of the 90 cells, oldest first. */
const cellTexts = (markup: string) =>
  [...markup.matchAll(/<li(?: class=(\w+))? tabindex=-1><span>([^<]*)<\/span>/g)].map((cell) => cell[2]!)

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
      now,
      "en"
    )
    const api = cellTexts(bars.component(component("api")).markup)
    expect(api).toHaveLength(90)
    expect(api.at(-3)).toBe("21 Nov 2026: no data; incident: Database failover")
    expect(api.at(-2)).toBe("22 Nov 2026: 99 % uptime; incident: Database failover")
    expect(api.at(-1)).toBe("23 Nov 2026: no data; incident: Slow &amp; &lt;flaky&gt;")
    expect(api[0]).toBe("26 Aug 2026: no data")

    const web = cellTexts(bars.component(component("web")).markup)
    expect(web.at(-2)).toBe("22 Nov 2026: no data; incident: Web only")
    expect(web.at(-1)).toBe("23 Nov 2026: no data; incidents: Web only; Slow &amp; &lt;flaky&gt;")
    expect(cellTexts(bars.component(component("db")).markup).filter((text) => text.includes("incident"))).toEqual([])
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
    const first = draw(buckets, [open], now, "en")
    const [api, web] = [first.component(component("api")), first.component(component("web"))]

    // An incident update that changes no title or time (the usual one): every bar is reused.
    const second = draw(buckets, [{ ...open }], now, "en")
    expect(second.component(component("api"))).toBe(api)
    expect(second.component(component("web"))).toBe(web)

    // The incident resolved: only its component's bar is drawn again.
    const third = draw(buckets, [{ ...open, resolvedAt: at(now) }], now, "en")
    expect(third.component(component("web"))).toBe(web)
    expect(third.component(component("api"))).not.toBe(api)
    // A renamed component is drawn again with its new name.
    expect(third.component({ ...component("web"), name: "Website" }).markup).toContain("Daily uptime of Website")

    // Buckets read again (a minute later): everything is drawn from them.
    const fourth = draw([...buckets], [open], now, "en")
    const redrawn = fourth.component(component("web"))
    expect(redrawn).not.toBe(web)
    expect(redrawn.markup).toBe(web.markup)
  })

  it("shows the days before a component existed as such, and today from its creation before the rollups have it", () => {
    const createdToday = today + 11 * 3_600_000
    // Read a minute after the component was created: no rollup of it yet.
    const bars = uptimeBarRenderer()([], [], now, "en")
    const fresh = bars.component(component("new", "operational", createdToday))
    const cells = cellTexts(fresh.markup)
    expect(cells.at(-1)).toBe("23 Nov 2026: 100 % uptime")
    expect(cells.at(-2)).toBe("22 Nov 2026: before this component existed")
    expect(cells[0]).toBe("26 Aug 2026: before this component existed")
    expect(fresh.markup).toContain("<li class=before tabindex=-1>")
    // A whole day up, most days of most bars, is the stylesheet's default cell: no class.
    expect(fresh.markup).toContain("<li tabindex=-1><span>23 Nov 2026: 100 % uptime</span>")
    expect(cellTexts(bars.component(component("old", "operational", today - 200 * day)).markup)).toHaveLength(90)
    expect(bars.component(component("old", "operational", today - 200 * day)).markup).toContain(
      "<li class=none tabindex=-1><span>26 Aug 2026: no data</span>"
    )
    expect(fresh.markup).toContain("100 % uptime since 23 Nov 2026")
    // A major outage since its creation counts fully; a partial one at 30 %.
    expect(cellTexts(bars.component(component("down", "major_outage", createdToday)).markup).at(-1))
      .toBe("23 Nov 2026: 0 % uptime")
    expect(cellTexts(bars.component(component("partial", "partial_outage", createdToday)).markup).at(-1))
      .toBe("23 Nov 2026: 70 % uptime")
    // Created before the bar's first day: no day is before it, and a day without a rollup is missing data.
    const old = cellTexts(bars.component(component("old", "operational", today - 200 * day)).markup)
    expect(old.every((text) => text.endsWith("no data"))).toBe(true)

    // Created three days ago: the rollups decide from then on, a missing day is missing data.
    const threeDays = uptimeBarRenderer()(
      [{ componentId: "c", bucketStart: new Date(today), observedSeconds: 43_200, downtimeSeconds: 432 }],
      [],
      now,
      "en"
    ).component(component("c", "operational", today - 3 * day + 3_600_000))
    expect(cellTexts(threeDays.markup).slice(-5)).toEqual([
      "19 Nov 2026: before this component existed",
      "20 Nov 2026: no data",
      "21 Nov 2026: no data",
      "22 Nov 2026: no data",
      "23 Nov 2026: 99 % uptime"
    ])
    expect(threeDays.markup).toContain("99 % uptime since 20 Nov 2026")
  })

  it("draws a group's bar as the lowest uptime of its components each day, with the incidents of any of them", () => {
    const bars = uptimeBarRenderer()(
      [
        { componentId: "a", bucketStart: new Date(today - day), observedSeconds: 86_400, downtimeSeconds: 864 },
        { componentId: "b", bucketStart: new Date(today - day), observedSeconds: 86_400, downtimeSeconds: 0 },
        { componentId: "b", bucketStart: new Date(today - 2 * day), observedSeconds: 86_400, downtimeSeconds: 8_640 },
        { componentId: "a", bucketStart: new Date(today), observedSeconds: 43_200, downtimeSeconds: 0 }
      ],
      [incident("B broke", ["b"], today - 2 * day, today - 2 * day + 3_600_000)],
      now,
      "en"
    )
    const group = bars.group({
      id: "g",
      name: "Core",
      components: [component("a", "operational", today - 2 * day + 1), component("b", "operational", today - 10 * day)]
    })
    expect(group.markup).toContain("Daily uptime of Core, the lowest of its components each day, oldest first")
    const cells = cellTexts(group.markup)
    expect(cells.at(-1)).toBe("23 Nov 2026: 100 % uptime (its lowest component)")
    expect(cells.at(-2)).toBe("22 Nov 2026: 99 % uptime (its lowest component)")
    expect(cells.at(-3)).toBe("21 Nov 2026: 90 % uptime (its lowest component); incident: B broke")
    // b existed, without data: missing data, not before.
    expect(cells.at(-4)).toBe("20 Nov 2026: no data")
    expect(cells.at(-12)).toBe("12 Nov 2026: before its components existed")
    // Its total: its lowest component's (b: 90 % and 100 % over two days).
    expect(group.markup).toContain("95 % uptime since 13 Nov 2026, its lowest component")
  })
})
