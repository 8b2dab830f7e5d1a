/**
 * The operator acts of the visibility model test, as fast-check commands. An act picks what it
 * works on among what the model says exists (the n-th live component, the n-th open incident, the
 * next occurrence of a series, …), so nearly every generated act applies, and creating something
 * gives it the next label (`c1`, `i2`, `m1`, `t1`). Once run, an act reads as what it did:
 * `createComponent(c1, private)`, `deleteComponent(c1)`, `cancelOccurrence(m1#2)`.
 */
import type { Duration } from "effect"
import * as fc from "fast-check"

import type { ModelWindow, VisibilityModel } from "./VisibilityModel.js"
import type { Command, VisibilityRun } from "./VisibilityRun.js"

/** An act: applies when the model has something to pick; reads as its last run did. */
class Act implements Command {
  private resolved: string | undefined

  constructor(
    private readonly generic: string,
    private readonly applies: (m: Readonly<VisibilityModel>) => boolean,
    private readonly perform: (m: VisibilityModel, r: VisibilityRun) => Promise<void>
  ) {}

  check(m: Readonly<VisibilityModel>) {
    return this.applies(m)
  }

  async run(m: VisibilityModel, r: VisibilityRun) {
    const before = r.trace.length
    try {
      await this.perform(m, r)
    } finally {
      this.resolved = r.trace[before]
    }
  }

  toString() {
    return this.resolved ?? this.generic
  }

  // Each execution gets fresh acts, so a counter-example reads as its own run resolved them.
  [fc.cloneMethod]() {
    return new Act(this.generic, this.applies, this.perform)
  }
}

const pick = <A>(items: ReadonlyArray<A>, index: number): A => items[index % items.length]!

/** Newest first: an act mostly works on what the acts just before it made. */
const newestFirst = <A>(items: Iterable<A>) => [...items].reverse()

const liveComponents = (m: Readonly<VisibilityModel>) => newestFirst(m.components.values()).filter((c) => c.alive)

/** Up to two distinct live components, by index (none when none is live). */
const names = (m: Readonly<VisibilityModel>, picks: ReadonlyArray<number>) => {
  const live = liveComponents(m)
  return live.length === 0 ? [] : [...new Set(picks.map((index) => pick(live, index).label))]
}
const namesOrNot = (m: Readonly<VisibilityModel>, picks: ReadonlyArray<number> | undefined) =>
  picks === undefined ? undefined : names(m, picks)

/** Which one, newest first: mostly the newest. */
const index = fc.constantFrom(0, 0, 0, 0, 1, 1, 2, 3)
/** Components a request names: mostly one or two, sometimes none. */
const picks = fc.oneof(
  { arbitrary: index.map((n) => [n]), weight: 4 },
  { arbitrary: fc.tuple(index, index), weight: 1 },
  { arbitrary: fc.constant<Array<number>>([]), weight: 1 }
)
/** componentStatuses: left out, `{}`, or naming components, as often each. */
const maybePicks = fc.oneof(
  fc.constant(undefined),
  fc.constant<Array<number>>([]),
  fc.array(index, { minLength: 1, maxLength: 2 })
)

const next = (prefix: string, taken: ReadonlyMap<string, unknown>) => `${prefix}${taken.size + 1}`

const components = (m: Readonly<VisibilityModel>, isPublic: boolean) =>
  liveComponents(m).filter((c) => c.isPublic === isPublic)
const incidentsWhere = (m: Readonly<VisibilityModel>, where: (open: boolean, published: boolean) => boolean) =>
  newestFirst(m.incidents.values()).filter((i) => where(!i.resolved, i.published))
/** Occurrences in one of `statuses`, the earliest of each series, newest series first. */
const occurrences = (m: Readonly<VisibilityModel>, statuses: ReadonlyArray<ModelWindow["status"]>) => {
  const series = newestFirst(new Set([...m.windows.values()].map((w) => w.series)))
  return series.flatMap((label) => m.occurrences(label).find((w) => statuses.includes(w.status)) ?? [])
}

const createComponent = fc.constantFrom(false, true, false).map((isPublic) =>
  new Act(
    `createComponent(${isPublic ? "public" : "private"})`,
    () => true,
    (m, r) => r.createComponent(m, next("c", m.components), isPublic)
  )
)

const setComponentPublic = fc.tuple(index, fc.boolean()).map(([n, isPublic]) =>
  new Act(
    `${isPublic ? "show" : "hide"}Component(#${n})`,
    (m) => components(m, !isPublic).length > 0,
    (m, r) => r.setComponentPublic(m, pick(components(m, !isPublic), n).label, isPublic)
  )
)

const deleteComponent = index.map((n) =>
  new Act(
    `deleteComponent(#${n})`,
    (m) => liveComponents(m).length > 0,
    (m, r) => r.deleteComponent(m, pick(liveComponents(m), n).label)
  )
)

const draft = fc.constantFrom(false, false, true)

const createIncident = fc.tuple(fc.option(picks, { nil: undefined, freq: 5 }), maybePicks, draft).map((
  [ids, statuses, draft]
) =>
  new Act(
    "createIncident",
    () => true,
    (m, r) =>
      r.createIncident(m, next("i", m.incidents), {
        ids: namesOrNot(m, ids),
        statuses: namesOrNot(m, statuses),
        draft
      })
  )
)

const createIncidentFromTemplate = fc.tuple(index, fc.option(picks, { nil: undefined, freq: 4 }), maybePicks, draft)
  .map(([t, ids, statuses, draft]) =>
    new Act(
      "createIncidentFromTemplate",
      (m) => m.templates.size > 0,
      (m, r) =>
        r.createIncident(m, next("i", m.incidents), {
          template: pick(newestFirst(m.templates.keys()), t),
          ids: namesOrNot(m, ids),
          statuses: namesOrNot(m, statuses),
          draft
        })
    )
  )

const patchIncident = fc.tuple(index, maybePicks, maybePicks).map(([n, ids, statuses]) =>
  new Act(
    `patchIncident(#${n})`,
    (m) => m.incidents.size > 0,
    (m, r) => r.patchIncident(m, pick(newestFirst(m.incidents.keys()), n), namesOrNot(m, ids), namesOrNot(m, statuses))
  )
)

const open = (m: Readonly<VisibilityModel>) => incidentsWhere(m, (isOpen) => isOpen)

const addUpdate = fc.tuple(index, fc.constantFrom(...(["identified", "monitoring", "resolved"] as const)), maybePicks)
  .map(([n, status, statuses]) =>
    new Act(
      `addUpdate(#${n}, ${status})`,
      (m) => open(m).length > 0,
      (m, r) => r.addUpdate(m, pick(open(m), n).label, status, namesOrNot(m, statuses))
    )
  )

const resolveIncident = index.map((n) =>
  new Act(
    `resolveIncident(#${n})`,
    (m) => open(m).length > 0,
    (m, r) => r.resolveIncident(m, pick(open(m), n).label)
  )
)

const drafts = (m: Readonly<VisibilityModel>) => incidentsWhere(m, (_, published) => !published)

const publishIncident = index.map((n) =>
  new Act(
    `publishIncident(#${n})`,
    (m) => drafts(m).length > 0,
    (m, r) => r.publishIncident(m, pick(drafts(m), n).label)
  )
)

const createTemplate = picks.map((ids) =>
  new Act(
    "createTemplate",
    () => true,
    (m, r) => r.createTemplate(m, next("t", m.templates), names(m, ids))
  )
)

const patchTemplate = fc.tuple(index, picks).map(([n, ids]) =>
  new Act(
    `patchTemplate(#${n})`,
    (m) => m.templates.size > 0,
    (m, r) => r.patchTemplate(m, pick(newestFirst(m.templates.keys()), n), names(m, ids))
  )
)

const createWindow = fc.tuple(
  picks,
  fc.constantFrom<Duration.Input>("10 minutes", "3 hours", "2 days"),
  fc.constantFrom(...(["weekly", "daily", "weekly", "none"] as const))
).map(([ids, startsIn, recurrence]) =>
  new Act(
    `createWindow(${recurrence})`,
    () => true,
    (m, r) => r.createWindow(m, next("m", m.windows), names(m, ids), startsIn, recurrence)
  )
)

const scheduled = (m: Readonly<VisibilityModel>) => occurrences(m, ["scheduled"])

const patchWindow = fc.tuple(index, picks).map(([n, ids]) =>
  new Act(
    `patchWindow(#${n})`,
    (m) => scheduled(m).length > 0,
    (m, r) => r.patchWindow(m, pick(scheduled(m), n).label, names(m, ids))
  )
)

const cancelOccurrence = index.map((n) =>
  new Act(
    `cancelOccurrence(#${n})`,
    (m) => scheduled(m).length > 0,
    (m, r) => r.cancelWindow(m, pick(scheduled(m), n).label, false)
  )
)

const unfinished = (m: Readonly<VisibilityModel>) => occurrences(m, ["in_progress", "scheduled"])

const cancelSeries = index.map((n) =>
  new Act(
    `cancelSeries(#${n})`,
    (m) => unfinished(m).length > 0,
    (m, r) => r.cancelWindow(m, pick(unfinished(m), n).label, true)
  )
)

const advanceClock = fc.constantFrom<Duration.Input>("15 minutes", "2 hours", "1 day", "8 days")
  .map((by) => new Act(`advanceClock(${by})`, () => true, (m, r) => r.advanceClock(m, by)))

/**
 * The acts with their weights: components come and go often, so that items name private
 * components that are then deleted, hidden or shown under them before the items change again.
 */
export const visibilityCommands: Array<fc.Arbitrary<Command>> = [
  [createComponent, 3],
  [setComponentPublic, 1],
  [deleteComponent, 4],
  [createIncident, 3],
  [createIncidentFromTemplate, 2],
  [patchIncident, 2],
  [addUpdate, 3],
  [resolveIncident, 1],
  [publishIncident, 1],
  [createTemplate, 2],
  [patchTemplate, 1],
  [createWindow, 3],
  [patchWindow, 1],
  [cancelOccurrence, 3],
  [cancelSeries, 1],
  [advanceClock, 2]
].flatMap(([arbitrary, weight]) =>
  Array<fc.Arbitrary<Command>>(weight as number).fill(arbitrary as fc.Arbitrary<Command>)
)
