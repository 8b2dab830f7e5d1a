/**
 * A small model of who may see what, written from the visibility rules (docs/api.md, "Public
 * visibility"), not from the code: per component whether it is public and still there; per
 * incident, maintenance window and incident template the components it names and its stored
 * visibility. `test/catalog/visibilityModel.test.ts` drives it beside the real service.
 *
 * Entities carry labels (`c1`, `i2`, `m1`, `m1#2` for a series' second occurrence, `t1`) so a
 * counter-example reads as the operator's steps.
 */

export interface ModelComponent {
  readonly label: string
  readonly id: string
  isPublic: boolean
  alive: boolean
}

/** What every item has: the components it names (labels of live components) and its stored visibility. */
export interface ModelItem {
  readonly label: string
  readonly id: string
  /** Shown on the page; unique to the item, except for the occurrences of one series. */
  readonly title: string
  named: Set<string>
  isPublic: boolean
}

export interface ModelIncident extends ModelItem {
  published: boolean
  resolved: boolean
}

/** Status and start are the service's clock business: read back from the admin API after each step. */
export interface ModelWindow extends ModelItem {
  /** The label of the series' first occurrence; the window's own for a one-off. */
  readonly series: string
  readonly recurring: boolean
  status: "scheduled" | "in_progress" | "completed" | "cancelled"
  start: number
}

export class VisibilityModel {
  readonly components = new Map<string, ModelComponent>()
  readonly incidents = new Map<string, ModelIncident>()
  readonly windows = new Map<string, ModelWindow>()
  readonly templates = new Map<string, ModelItem>()

  isLive(label: string): boolean {
    return this.components.get(label)?.alive === true
  }

  private isPublicComponent(label: string): boolean {
    const component = this.components.get(label)
    return component !== undefined && component.alive && component.isPublic
  }

  /** Rule 1a: public when naming none, or at least one public component. */
  decide(named: Iterable<string>): boolean {
    const list = [...named]
    return list.length === 0 || list.some((label) => this.isPublicComponent(label))
  }

  private items(): Array<ModelItem> {
    return [...this.incidents.values(), ...this.windows.values(), ...this.templates.values()]
  }

  addComponent(label: string, id: string, isPublic: boolean) {
    this.components.set(label, { label, id, isPublic, alive: true })
  }

  /** Rule 1d: every item naming the component is decided again from the components it names. */
  setComponentPublic(label: string, isPublic: boolean) {
    this.components.get(label)!.isPublic = isPublic
    for (const item of this.items()) {
      if (item.named.has(label)) item.isPublic = [...item.named].some((named) => this.isPublicComponent(named))
    }
  }

  /** Rule 2: the links go, every item keeps its visibility. */
  deleteComponent(label: string) {
    this.components.get(label)!.alive = false
    for (const item of this.items()) item.named.delete(label)
  }

  /** Rule 1c: newly named components make the item public when one of them is; never private. */
  private nameMore(item: ModelItem, added: ReadonlyArray<string>) {
    const fresh = added.filter((label) => !item.named.has(label))
    if (fresh.some((label) => this.isPublicComponent(label))) item.isPublic = true
    for (const label of added) item.named.add(label)
  }

  /** Rule 1a/1b: what a request names, decided anew. */
  /** Rule 1b: the same components as it names now (a form sending them back) choose nothing. */
  private nameExactly(item: ModelItem, named: ReadonlyArray<string>) {
    const same = new Set(named).size === item.named.size && named.every((id) => item.named.has(id))
    item.named = new Set(named)
    if (!same) item.isPublic = this.decide(named)
  }

  createIncident(
    incident: { label: string; id: string; title: string; published: boolean },
    componentIds: ReadonlyArray<string>,
    statusKeys: ReadonlyArray<string>
  ) {
    const named = [...componentIds, ...statusKeys]
    this.incidents.set(incident.label, {
      ...incident,
      named: new Set(named),
      isPublic: this.decide(named),
      resolved: false
    })
  }

  /**
   * Rule 1a, from a template: without its own componentIds the incident takes the template's
   * components and stored visibility; componentStatuses then add as in 1c.
   */
  createIncidentFromTemplate(
    incident: { label: string; id: string; title: string; published: boolean },
    template: string,
    componentIds: ReadonlyArray<string> | undefined,
    statusKeys: ReadonlyArray<string>
  ) {
    if (componentIds !== undefined) return this.createIncident(incident, componentIds, statusKeys)
    const source = this.templates.get(template)!
    const created: ModelIncident = {
      ...incident,
      named: new Set(source.named),
      isPublic: source.isPublic,
      resolved: false
    }
    this.nameMore(created, statusKeys)
    this.incidents.set(incident.label, created)
  }

  /** PATCH: componentIds decide anew (1b), componentStatuses alone add (1c), `{}` or neither change nothing. */
  updateIncident(
    label: string,
    componentIds: ReadonlyArray<string> | undefined,
    statusKeys: ReadonlyArray<string> | undefined
  ) {
    const incident = this.incidents.get(label)!
    if (componentIds !== undefined) this.nameExactly(incident, [...componentIds, ...(statusKeys ?? [])])
    else if (statusKeys !== undefined) this.nameMore(incident, statusKeys)
  }

  /** POST …/updates: componentStatuses add (1c); resolving or updating changes nothing else (2). */
  addIncidentUpdate(label: string, statusKeys: ReadonlyArray<string> | undefined, resolves: boolean) {
    const incident = this.incidents.get(label)!
    if (statusKeys !== undefined) this.nameMore(incident, statusKeys)
    if (resolves) incident.resolved = true
  }

  resolveIncident(label: string) {
    this.incidents.get(label)!.resolved = true
  }

  /** Rule 2 and 4: publishing shows the draft as its stored visibility says. */
  publishIncident(label: string) {
    this.incidents.get(label)!.published = true
  }

  createTemplate(template: { label: string; id: string; title: string }, componentIds: ReadonlyArray<string>) {
    this.templates.set(template.label, {
      ...template,
      named: new Set(componentIds),
      isPublic: this.decide(componentIds)
    })
  }

  updateTemplate(label: string, componentIds: ReadonlyArray<string>) {
    this.nameExactly(this.templates.get(label)!, componentIds)
  }

  createWindow(
    window: { label: string; id: string; title: string; recurring: boolean; start: number },
    componentIds: ReadonlyArray<string>
  ) {
    this.windows.set(window.label, {
      ...window,
      series: window.label,
      status: "scheduled",
      named: new Set(componentIds),
      isPublic: this.decide(componentIds)
    })
  }

  updateWindow(label: string, componentIds: ReadonlyArray<string>) {
    this.nameExactly(this.windows.get(label)!, componentIds)
  }

  /** Rule 3: a series' next occurrence takes the components and visibility of the one it follows. */
  followOccurrence(
    previous: string,
    next: { label: string; id: string; title: string; status: ModelWindow["status"]; start: number }
  ) {
    const before = this.windows.get(previous)!
    this.windows.set(next.label, {
      ...next,
      series: before.series,
      recurring: true,
      named: new Set(before.named),
      isPublic: before.isPublic
    })
  }

  /** What the public may see of an incident (rule 4). */
  incidentVisible(incident: ModelIncident): boolean {
    return incident.published && incident.isPublic
  }

  /** The components a public item lists (rule 6): its live public ones. */
  shownComponents(item: ModelItem): Array<string> {
    return [...item.named].filter((label) => this.isPublicComponent(label))
  }

  /** The occurrences of a series, earliest first. */
  occurrences(series: string): Array<ModelWindow> {
    return [...this.windows.values()].filter((w) => w.series === series).sort((a, b) => a.start - b.start)
  }
}
