/**
 * Screens are addressed by the URL fragment (`/admin#/webhooks`): the server serves one page
 * for all of them, and back/forward and bookmarks work.
 *
 * A form with unsaved changes guards leaving (`guardLeave`): going to another screen (a link, back
 * or forward, a typed address) asks first, and so does closing or reloading the tab. Declining
 * keeps the screen and what was typed.
 */
import { useEffect, useState } from "preact/hooks"

const current = () => location.hash.startsWith("#/") ? location.hash.slice(2) : ""

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
 * Whether the screen may change now: yes without unsaved changes, else the operator's answer.
 * `window.confirm` is the browser's own dialog: modal, keyboard and screen-reader ready, and it
 * blocks until answered, so the route does not move underneath it.
 */
const mayLeave = () => !hasUnsavedChanges() || confirm(leaveQuestion)

export const useRoute = (): string => {
  const [route, setRoute] = useState(current)
  useEffect(() => {
    const update = (event: HashChangeEvent) => {
      if (current() === route || mayLeave()) {
        setRoute(current())
        return
      }
      // The address has moved already: put it back without a new history entry or another event.
      history.replaceState(history.state, "", event.oldURL)
    }
    addEventListener("hashchange", update)
    return () => removeEventListener("hashchange", update)
  }, [route])
  return route
}

export const href = (path: string) => `#/${path}`
