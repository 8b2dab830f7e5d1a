/**
 * The public pages' content, from the public state alone (the snapshot and the daily uptime
 * buckets): the status page, an incident's timeline, a maintenance window, the paged history, the
 * answers of the subscription forms and e-mail links, and the password form of a protected page.
 * Each renders one page (PageRender): its state, its addresses under its base, and its language's
 * words (i18n/messages); operator-written text is shown as written.
 */
import type { ComponentStatus, PublicComponent } from "../../domain/Component.js"
import type { PublicComponentGroup } from "../../domain/ComponentGroup.js"
import type { PublicIncident, PublicIncidentDetail } from "../../domain/Incident.js"
import type { PublicMaintenance } from "../../domain/Maintenance.js"
import type { Messages } from "../../i18n/Messages.js"
import { fill, html, Raw } from "./Html.js"
import { type RenderedPage, renderPage } from "./Layout.js"
import { renderMarkdown } from "./Markdown.js"
import { href, messagesOf, type PageRender } from "./PageRender.js"
import { type TimeFormatter, timeFormatter } from "./Times.js"

export const historyPageSize = 20
const recentHistory = 5

/**
 * What the subscribe form shows: nothing yet, a refusal of the address or of the components
 * (with what was entered), or the outcome.
 */
export type SubscribeForm =
  | { readonly _tag: "Empty" }
  | {
    readonly _tag: "Invalid"
    readonly field: "email" | "componentIds"
    readonly email: string
    readonly componentIds: ReadonlyArray<string>
    readonly error: string
  }
  | { readonly _tag: "Done"; readonly message: string; readonly ok: boolean }

/** A mark beside the words, so colour is never the only signal. */
const statusMark: Record<ComponentStatus, string> = {
  operational: "✓",
  degraded: "!",
  partial_outage: "!",
  major_outage: "✕",
  maintenance: "⚙"
}

/** The page's clock and words, found once per render. */
const contextOf = (render: PageRender) => {
  const m = messagesOf(render)
  const time = timeFormatter(render.state.organization.timezone, render.locale)
  const nameOf = new Map(render.state.components.map((component) => [component.id, component.name]))
  const names = (ids: ReadonlyArray<string>) => ids.map((id) => nameOf.get(id) ?? id).join(m.listSeparator)
  return { m, time, names }
}

/** The title of a sub-page: its own, then the page's name. */
const titled = (render: PageRender, title: string) =>
  messagesOf(render).layout.pageTitle(title, render.state.organization.name)

const backLink = (render: PageRender, m: Messages) =>
  html`<p><a href="${href(render, "/")}">${m.page.backToStatus}</a></p>`

/**
 * The component checkboxes of the subscribe and preferences forms: each public group under its
 * name, with an "All of" box (`groupIds`, read as its components at the time of the request),
 * then the ungrouped components. Checkboxes are named `componentIds` like the API's field,
 * `checked` ticked; none ticked means every component. With `error`, the set is marked invalid
 * and says why.
 */
const componentChoices = (
  m: Messages,
  components: ReadonlyArray<PublicComponent>,
  groups: ReadonlyArray<PublicComponentGroup>,
  checked: ReadonlyArray<string>,
  options: { readonly legend: string; readonly error?: string | undefined }
) => {
  const ticked = new Set(checked)
  const byId = new Map(components.map((component) => [component.id, component]))
  const grouped = new Set(groups.flatMap((group) => group.componentIds))
  // A label around its box needs no id to name it: a component's id once per box, not three times.
  const box = (component: PublicComponent) =>
    html`<li><label><input type="checkbox" name="componentIds" value="${component.id}"${
      ticked.has(component.id) ? " checked" : ""
    }> ${component.name}</label></li>`
  return html`<fieldset class="choices" aria-describedby="components-hint${
    options.error ? " components-error" : ""
  }"><legend>${options.legend}</legend><p id="components-hint" class="small">${m.subscribe.tickNone}</p>${
    options.error && html`<p id="components-error" class="error">${options.error}</p>`
  }<ul class="plain">${
    groups.map((group) =>
      html`<li><fieldset class="choices"><legend>${group.name}</legend><ul class="plain"><li><label><input type="checkbox" name="groupIds" value="${group.id}"> ${
        fill(m.subscribe.allOf, group.name)
      }</label></li>${group.componentIds.flatMap((id) => byId.get(id) ?? []).map(box)}</ul></fieldset></li>`
    )
  }${components.filter((component) => !grouped.has(component.id)).map(box)}</ul></fieldset>`
}

const incidentSummary = (
  render: PageRender,
  m: Messages,
  incident: PublicIncident | PublicIncidentDetail,
  time: TimeFormatter
) => {
  const latest = "updates" in incident ? incident.updates.at(-1) : undefined
  return html`<li class="card"><div class="row"><h3><a href="${
    href(render, `/incidents/${encodeURIComponent(incident.id)}`)
  }">${incident.title}</a></h3><span class="st">${m.status.incident[incident.status]}</span></div><p>${
    latest?.message ?? incident.message
  }</p><p class="small">${
    fill(latest ? m.page.updated : m.page.posted, time(latest?.createdAt ?? incident.updatedAt))
  }</p></li>`
}

const maintenancePath = (window: PublicMaintenance) => `/maintenance/${encodeURIComponent(window.id)}`

const maintenanceItem = (
  render: PageRender,
  m: Messages,
  window: PublicMaintenance,
  names: (ids: ReadonlyArray<string>) => string,
  time: TimeFormatter
) =>
  html`<li class="card"><div class="row"><h3><a href="${
    href(render, maintenancePath(window))
  }">${window.title}</a></h3><span class="st maintenance">${m.status.maintenance[window.status]}</span></div>${
    window.description && html`<p>${window.description}</p>`
  }<p class="small">${fill(m.page.window, time(window.scheduledStart), time(window.scheduledEnd))}${
    window.componentIds.length > 0 && ` · ${names(window.componentIds)}`
  }</p></li>`

const subscribeSection = (render: PageRender, m: Messages, form: SubscribeForm) => {
  const { components, summary } = render.state
  const invalid = form._tag === "Invalid" && form.field === "email"
  return html`<section aria-labelledby="subscribe-title"><h2 id="subscribe-title">${m.subscribe.title}</h2>${
    form._tag === "Done" &&
    html`<p class="notice${form.ok ? "" : " bad"}" role="${form.ok ? "status" : "alert"}">${form.message}</p>`
  }<form class="subscribe" method="post" action="${
    href(render, "/subscribe")
  }" novalidate><div class="field"><label for="email">${m.subscribe.email}</label><input id="email" name="email" type="email" autocomplete="email" required value="${
    form._tag === "Invalid" ? form.email : ""
  }"${invalid ? html` aria-invalid="true" aria-describedby="email-error"` : ""}>${
    invalid && html`<p id="email-error" class="error">${form.error}</p>`
  }</div>${
    components.length > 0 &&
    componentChoices(m, components, summary.groups, form._tag === "Invalid" ? form.componentIds : [], {
      legend: m.subscribe.components,
      error: form._tag === "Invalid" && form.field === "componentIds" ? form.error : undefined
    })
  }<button type="submit">${m.subscribe.submit}</button></form><p class="small">${
    fill(
      m.subscribe.feeds,
      html`<a href="${href(render, "/api/v1/status/rss")}">${m.layout.rss}</a>`,
      html`<a href="${href(render, "/api/v1/status/atom")}">${m.layout.atom}</a>`
    )
  }</p></section>`
}

/** What the status page shows under a component (its uptime bar and chart) and under a group (its bar). */
export interface StatusSections {
  readonly component: (component: PublicComponent) => Raw
  readonly group: (group: PublicComponentGroup) => Raw
}

const statusLine = (m: Messages, status: ComponentStatus) =>
  html`<span class="st ${status}"><span class="mark" aria-hidden="true">${statusMark[status]}</span> ${
    m.status.component[status]
  }</span>`

const componentItem = (m: Messages, component: PublicComponent, sections: StatusSections, heading: "h3" | "h4") =>
  html`<li class="card"><div class="row">${
    heading === "h3" ? html`<h3>${component.name}</h3>` : html`<h4>${component.name}</h4>`
  }${statusLine(m, component.status)}</div>${
    component.description && html`<p class="small">${component.description}</p>`
  }${sections.component(component)}</li>`

/**
 * A group: its worst status and bar, and its components behind a `details` that opens without
 * script. Its components' headings are a level below its own.
 */
const groupItem = (
  m: Messages,
  group: PublicComponentGroup,
  members: ReadonlyArray<PublicComponent>,
  sections: StatusSections
) =>
  html`<li class="card group"><div class="row"><h3>${group.name}</h3>${statusLine(m, group.status)}</div>${
    sections.group(group)
  }<details><summary>${m.page.componentCount(members.length)}<span class="vh">${
    fill(m.page.ofGroup, group.name)
  }</span></summary><ul class="plain members">${
    members.map((component) => componentItem(m, component, sections, "h4"))
  }</ul></details></li>`

/**
 * The status page; `sections` draws the uptime bars (UptimeBar.ts). Groups come first in their
 * order, then the ungrouped components in theirs. The page's description, if any, follows the
 * banner.
 */
export const statusPage = (render: PageRender, sections: StatusSections, form: SubscribeForm): RenderedPage => {
  const { state } = render
  const { organization, summary } = state
  const { m, names, time } = contextOf(render)
  const past = state.incidents.filter((incident) => incident.status === "resolved").slice(0, recentHistory)

  const body: Raw =
    html`<section class="banner ${summary.status}" aria-labelledby="overall"><span class="mark" aria-hidden="true">${
      statusMark[summary.status]
    }</span><h1 id="overall">${m.status.overall[summary.status]}</h1></section>
${render.description !== "" && html`<p class="description">${render.description}</p>\n`}${
      summary.activeIncidents.length > 0 &&
      html`<section aria-labelledby="active-title"><h2 id="active-title">${m.page.activeIncidents}</h2><ul class="plain">${
        summary.activeIncidents.map((active) =>
          incidentSummary(render, m, state.incidents.find((i) => i.id === active.id) ?? active, time)
        )
      }</ul></section>`
    }
${
      summary.upcomingMaintenance.length > 0 &&
      html`<section aria-labelledby="maintenance-title"><h2 id="maintenance-title">${m.page.maintenance}</h2><ul class="plain">${
        summary.upcomingMaintenance.map((window) => maintenanceItem(render, m, window, names, time))
      }</ul></section>`
    }
<section aria-labelledby="components-title"><h2 id="components-title">${m.page.components}</h2>${
      state.components.length === 0
        ? html`<p>${m.page.noComponents}</p>`
        : html`<ul class="plain">${
          summary.groups.map((group) =>
            groupItem(
              m,
              group,
              state.components.filter((component) => component.groupId === group.id),
              sections
            )
          )
        }${
          state.components.filter((component) => component.groupId === null).map((component) =>
            componentItem(m, component, sections, "h3")
          )
        }</ul>`
    }</section>
<section aria-labelledby="history-title"><h2 id="history-title">${m.page.recentHistory}</h2>${
      past.length === 0
        ? html`<p>${m.page.noRecentIncidents}</p>`
        : html`<ul class="plain">${past.map((incident) => incidentSummary(render, m, incident, time))}</ul>`
    }<p><a href="${href(render, "/history")}">${m.page.allPastIncidents}</a></p></section>
${subscribeSection(render, m, form)}`
  return renderPage({ render, title: m.layout.statusTitle(organization.name), body })
}

export const incidentPage = (render: PageRender, incident: PublicIncidentDetail): RenderedPage => {
  const { m, names, time } = contextOf(render)
  const body = html`${backLink(render, m)}<h1>${incident.title}</h1><p><span class="st">${
    m.status.incident[incident.status]
  }</span> · ${m.status.severity[incident.severity]}${
    incident.componentIds.length > 0 && html` · ${fill(m.page.affects, names(incident.componentIds))}`
  }</p><p class="small">${fill(m.page.opened, time(incident.createdAt))}${
    incident.resolvedAt && html` · ${fill(m.page.resolved, time(incident.resolvedAt))}`
  }</p>
<h2>${m.page.updates}</h2><ol class="timeline" reversed>${
    incident.updates.toReversed().map((update) =>
      html`<li><p><strong>${m.status.incident[update.status]}</strong> · ${
        time(update.createdAt)
      }</p><p>${update.message}</p></li>`
    )
  }</ol>${
    incident.postmortem &&
    html`<section class="postmortem" aria-labelledby="postmortem-title"><h2 id="postmortem-title">${m.page.postmortem}</h2><p class="small">${
      fill(m.page.published, time(incident.postmortem.publishedAt))
    }</p>${new Raw(renderMarkdown(incident.postmortem.body, { headingOffset: 2 }))}</section>`
  }`
  return renderPage({ render, title: titled(render, incident.title), body })
}

/** A window's page, which the feeds link to: its state, times, description and public components. */
export const maintenancePage = (render: PageRender, window: PublicMaintenance): RenderedPage => {
  const { m, names, time } = contextOf(render)
  const body = html`${backLink(render, m)}<h1>${window.title}</h1><p><span class="st maintenance">${
    m.status.maintenance[window.status]
  }</span> · ${m.page.plannedMaintenance}${
    window.componentIds.length > 0 && html` · ${fill(m.page.affects, names(window.componentIds))}`
  }</p><p class="small">${fill(m.page.fromTo, time(window.scheduledStart), time(window.scheduledEnd))}</p>${
    window.description && html`<h2>${m.page.details}</h2><p>${window.description}</p>`
  }`
  return renderPage({ render, title: titled(render, window.title), body })
}

/**
 * The address of history page `page`, below the page's base: a path, not a query, so the static
 * mirror can hold every page as an object of its own (`?page=N` still answers, for links made
 * before).
 */
export const historyPath = (page: number) => page === 1 ? "/history" : `/history/${page}`

/** The number of history pages of `incidents` incidents. */
export const historyPages = (incidents: number) => Math.max(1, Math.ceil(incidents / historyPageSize))

/** Page `page` (from 1) of `pages` of past and present incidents, newest first, showing `shown` (that page's incidents). */
export const historyPage = (
  render: PageRender,
  page: number,
  pages: number,
  shown: ReadonlyArray<PublicIncidentDetail>
): RenderedPage => {
  const { m, time } = contextOf(render)
  const body = html`${backLink(render, m)}<h1>${m.page.historyTitle}</h1>${
    shown.length === 0
      ? html`<p>${m.page.noIncidents}</p>`
      : html`<ul class="plain">${shown.map((incident) => incidentSummary(render, m, incident, time))}</ul>`
  }<nav aria-label="${m.page.historyPages}"><p class="row">${
    page > 1
      ? html`<a href="${href(render, historyPath(page - 1))}" rel="prev">${m.page.newer}</a>`
      : html`<span></span>`
  }<span>${m.page.pageOf(page, pages)}</span>${
    page < pages
      ? html`<a href="${href(render, historyPath(page + 1))}" rel="next">${m.page.older}</a>`
      : html`<span></span>`
  }</p></nav>`
  return renderPage({ render, title: titled(render, m.page.historyTitle), body })
}

/** A page that answers a form or an e-mail link: a heading, what happened, and optionally a form. */
export const messagePage = (
  render: PageRender,
  options: { readonly title: string; readonly message: string; readonly ok: boolean; readonly extra?: Raw }
) =>
  renderPage({
    render,
    title: titled(render, options.title),
    body: html`<h1>${options.title}</h1><p class="notice${options.ok ? "" : " bad"}" role="${
      options.ok ? "status" : "alert"
    }">${options.message}</p>${options.extra}${backLink(render, messagesOf(render))}`
  })

/** The page a confirmation link opens: one button, so a link scanner that follows it confirms nobody. */
export const confirmSubscriptionForm = (render: PageRender, token: string) =>
  html`<form method="post" action="${
    href(render, "/subscribe/verify")
  }"><input type="hidden" name="token" value="${token}"><button type="submit">${
    messagesOf(render).forms.confirmButton
  }</button></form>`

/** The page an unsubscribe link opens: one button, so a link scanner that follows it changes nothing. */
export const unsubscribeForm = (render: PageRender, email: string, token: string) =>
  html`<form method="post" action="${
    href(render, "/unsubscribe")
  }"><input type="hidden" name="email" value="${email}"><input type="hidden" name="token" value="${token}"><button type="submit">${
    fill(messagesOf(render).forms.unsubscribeButton, email)
  }</button></form>`

/** What the preferences page says above its form: nothing, a saved choice, or a refused one. */
export type PreferencesNotice =
  | { readonly _tag: "None" }
  | { readonly _tag: "Saved"; readonly message: string }
  | { readonly _tag: "Invalid"; readonly error: string }

/**
 * The preferences page of a subscriber mail's link: the components to hear about, ticked as
 * chosen, and unsubscribing. Both are forms that post, so a link scanner that follows the link
 * changes nothing; the address and token travel as hidden fields.
 */
export const preferencesPage = (
  render: PageRender,
  options: {
    readonly email: string
    readonly token: string
    readonly componentIds: ReadonlyArray<string> | null
    readonly notice: PreferencesNotice
  }
) => {
  const { state } = render
  const m = messagesOf(render)
  const { email, notice, token } = options
  const action = href(render, "/subscription")
  const pair =
    html`<input type="hidden" name="email" value="${email}"><input type="hidden" name="token" value="${token}">`
  const body = html`<h1>${m.preferences.title}</h1>${
    notice._tag === "Saved" && html`<p class="notice" role="status">${notice.message}</p>`
  }<p>${fill(m.preferences.sentTo, html`<strong>${email}</strong>`)}</p>${
    // A choice whose components were all deleted or hidden since: not "every component".
    notice._tag !== "Invalid" && options.componentIds !== null &&
    !options.componentIds.some((id) => state.components.some((component) => component.id === id)) &&
    html`<p class="notice">${m.preferences.noneListed}</p>`}${
    state.components.length === 0
      ? html`<p>${m.preferences.noComponents}</p>`
      : html`<form method="post" action="${action}" aria-labelledby="choose-title"><h2 id="choose-title">${m.preferences.choose}</h2>${pair}${
        componentChoices(m, state.components, state.summary.groups, options.componentIds ?? [], {
          legend: m.subscribe.components,
          error: notice._tag === "Invalid" ? notice.error : undefined
        })
      }<p class="small">${m.preferences.unnamedReachAll}</p><button type="submit" name="action" value="save">${m.preferences.save}</button></form>`
  }<form method="post" action="${action}" aria-labelledby="stop-title"><h2 id="stop-title">${m.preferences.stop}</h2>${pair}<button type="submit" name="action" value="unsubscribe">${
    fill(m.preferences.unsubscribe, email)
  }</button></form>${backLink(render, m)}`
  return renderPage({ render, title: titled(render, m.preferences.title), body })
}

/** Why the password form is shown again: a wrong password, or too many tries from the reader. */
export type AccessError = "wrongPassword" | "tooManyTries"

/** The password field's look: the shared stylesheet styles only e-mail fields. */
const accessCss =
  "input[type=password]{font:inherit;padding:.5rem .6rem;border:1px solid #6e7781;border-radius:6px;width:100%}"

/**
 * The password form of a protected page: one labelled field, posted to `${base}/access` with the
 * path to return to (`next`, one of the page's own paths) as a hidden field.
 */
export const accessPage = (
  render: PageRender,
  options: { readonly next: string; readonly error?: AccessError | undefined }
): RenderedPage => {
  const m = messagesOf(render)
  const { error } = options
  const body = html`<h1>${m.access.title}</h1>${
    error !== undefined && html`<p class="notice bad" role="alert" id="password-error">${m.access[error]}</p>`
  }<p>${m.access.intro}</p><form class="subscribe" method="post" action="${
    href(render, "/access")
  }"><input type="hidden" name="next" value="${options.next}"><div class="field"><label for="password">${m.access.password}</label><input id="password" name="password" type="password" autocomplete="current-password" required${
    error === "wrongPassword" ? html` aria-invalid="true" aria-describedby="password-error"` : ""
  }></div><button type="submit">${m.access.submit}</button></form>`
  return renderPage({ render, title: titled(render, m.access.title), body, css: accessCss })
}
