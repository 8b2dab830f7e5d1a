/**
 * Screens are addressed by the URL fragment (`/admin#/webhooks`): the server serves one page
 * for all of them, and back/forward and bookmarks work. What a screen shows may follow its path
 * (`#/monitors?id=…`: that monitor's detail), so a link or a bookmark opens it directly.
 *
 * A form with unsaved changes guards leaving (`guardLeave`): another address (a link, back or
 * forward, a typed address, another monitor's detail) asks first, and so does closing or reloading
 * the tab. Declining keeps the screen and what was typed, and puts the address back: a traversal
 * (back, forward) is undone with `history.go`, an address added by a link with `history.back()`,
 * so no entry of the history is overwritten. One listener decides, then tells the hooks, so no
 * part of the screen sees an address the operator declined.
 */
import { useEffect, useState } from "preact/hooks"

/** The fragment after `#/`: a screen's path, then optionally `?` and what the screen shows in it. */
const fragment = () => location.hash.startsWith("#/") ? location.hash.slice(2) : ""

const pathOf = (fragment: string) => fragment.split("?")[0]!

const queryOf = (fragment: string) => new URLSearchParams(fragment.split("?")[1] ?? "")

/** The question asked before a screen change throws typed text away. */
export const leaveQuestion = "You have unsaved changes on this screen. Leave anyway and lose them?"

const guards = new Set<() => boolean>()

const hasUnsavedChanges = () => [...guards].some((unsaved) => unsaved())

// The browser asks in its own words; setting `returnValue` is what older browsers need to ask at all.
const onBeforeUnload = (event: BeforeUnloadEvent) => {
  if (!hasUnsavedChanges()) return
  event.preventDefault()
  event.returnValue = ""
}

/**
 * Registers a form's `unsaved()`; while any says true, leaving the screen or the page asks first.
 * Returns the unregistering function (a form calls it when it goes away).
 */
export const guardLeave = (unsaved: () => boolean): () => void => {
  if (guards.size === 0) addEventListener("beforeunload", onBeforeUnload)
  guards.add(unsaved)
  return () => {
    guards.delete(unsaved)
    if (guards.size === 0) removeEventListener("beforeunload", onBeforeUnload)
  }
}

/**
 * Whether what is shown may change now: yes without unsaved changes, else the operator's answer.
 * `window.confirm` is the browser's own dialog: modal, keyboard and screen-reader ready, and it
 * blocks until answered, so the address does not move underneath it.
 */
export const mayLeave = () => !hasUnsavedChanges() || confirm(leaveQuestion)

/** Each history entry the dashboard has seen is numbered (in `history.state`), to undo a traversal. */
const indexOf = (state: unknown): number | undefined =>
  typeof state === "object" && state !== null && "dashboardIndex" in state && typeof state.dashboardIndex === "number"
    ? state.dashboardIndex
    : undefined

const number = (index: number) => history.replaceState({ ...history.state, dashboardIndex: index }, "")

let accepted = fragment()
let acceptedIndex = 0
let undoing = false
const listeners = new Set<(fragment: string) => void>()

const onHashChange = () => {
  const next = fragment()
  if (undoing) {
    undoing = false
    if (next === accepted) return
  }
  if (next === accepted) return
  const index = indexOf(history.state)
  if (!mayLeave()) {
    undoing = true
    // A new entry (a link, a typed address) is stepped back from; a traversal is walked back.
    if (index === undefined) history.back()
    else history.go(acceptedIndex - index)
    return
  }
  if (index === undefined) number(acceptedIndex + 1)
  accepted = next
  acceptedIndex = indexOf(history.state) ?? acceptedIndex + 1
  for (const listener of listeners) listener(next)
}

/** Subscribes to the accepted address; the one listener on the window is there while anyone listens. */
const useAccepted = (): string => {
  const [current, setCurrent] = useState(accepted)
  useEffect(() => {
    if (listeners.size === 0) {
      accepted = fragment()
      if (indexOf(history.state) === undefined) number(acceptedIndex)
      else acceptedIndex = indexOf(history.state)!
      addEventListener("hashchange", onHashChange)
    }
    listeners.add(setCurrent)
    setCurrent(accepted)
    return () => {
      listeners.delete(setCurrent)
      if (listeners.size === 0) removeEventListener("hashchange", onHashChange)
    }
  }, [])
  return current
}

/** The current screen's path (`monitors` for `#/monitors?id=…`). */
export const useRoute = (): string => pathOf(useAccepted())

/** A screen's address, with what it should show: `href("monitors", { id })` is `#/monitors?id=…`. */
export const href = (path: string, params?: Readonly<Record<string, string>>) => {
  const search = params === undefined ? "" : new URLSearchParams(params).toString()
  return search.length === 0 ? `#/${path}` : `#/${path}?${search}`
}

/**
 * The current address's parameters, and `replace`, which writes them for the current screen
 * without a history entry (a selection is not a step back). With `guarded` (what is shown now
 * holds a form the change removes) it asks first when a form has unsaved changes; it says whether
 * it changed the address.
 */
export const useRouteQuery = () => {
  const current = useAccepted()
  const replace = (next: Readonly<Record<string, string>>, guarded = false): boolean => {
    if (guarded && !mayLeave()) return false
    history.replaceState(history.state, "", href(pathOf(accepted), next))
    accepted = fragment()
    for (const listener of listeners) listener(accepted)
    return true
  }
  return { params: queryOf(current), replace } as const
}
