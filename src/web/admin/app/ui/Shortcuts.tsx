/**
 * Keyboard shortcuts for what operators do most, ignored while typing in a field or with a
 * modifier held (so the browser's own stay theirs):
 *
 * - `/` search, `n` a new incident (the incidents screen's form, its title focused), `u` post an
 *   update (the overview's first open incident), `?` this list.
 *
 * A shortcut the role may not use (a viewer's `n`) does nothing. The list opens in a native
 * modal dialog, which Escape closes and which gives focus back where it was.
 */
import { useEffect, useRef } from "preact/hooks"

import { canWith, useAccess } from "../core/access.js"
import { href } from "../core/router.js"
import { searchInputId } from "./Search.js"

/**
 * Focuses the first element matching `selector` once the screen has drawn it (up to two seconds);
 * `"open"` also presses it when it is a closed disclosure (`aria-expanded="false"`).
 */
const focusWhenShown = (selector: string, open?: "open") => {
  const deadline = performance.now() + 2_000
  const attempt = () => {
    const element = document.querySelector<HTMLElement>(selector)
    if (element !== null) {
      element.focus()
      if (open && element.getAttribute("aria-expanded") === "false") element.click()
    } else if (performance.now() < deadline) {
      requestAnimationFrame(attempt)
    }
  }
  attempt()
}

const typingIn = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))

export const shortcutList: ReadonlyArray<readonly [key: string, does: string]> = [
  ["/", "Search components, monitors and incidents"],
  ["n", "New incident"],
  ["u", "Post an update on the first open incident"],
  ["?", "Show these shortcuts"]
]

export const Shortcuts = () => {
  const access = useAccess()
  const can = (operation: Parameters<typeof canWith>[1]) => canWith(access, operation)
  const dialog = useRef<HTMLDialogElement>(null)

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
      if (typingIn(event.target) || dialog.current?.open) return
      switch (event.key) {
        case "/":
          event.preventDefault()
          document.getElementById(searchInputId)?.focus()
          return
        case "n":
          if (!can("incidents.create")) return
          event.preventDefault()
          location.hash = href("incidents")
          focusWhenShown("#incident-title")
          return
        case "u":
          if (!can("incidents.addUpdate")) return
          event.preventDefault()
          location.hash = href("overview")
          // The first open incident's form; opened already, it is focused, not closed.
          focusWhenShown(".overview-incident:first-child > button[aria-expanded]", "open")
          return
        case "?":
          event.preventDefault()
          dialog.current?.showModal()
          return
      }
    }
    document.addEventListener("keydown", onKeyDown)
    return () => document.removeEventListener("keydown", onKeyDown)
  }, [access.role])

  return (
    <dialog ref={dialog} class="shortcuts" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl>
        {shortcutList.map(([key, does]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button type="submit">Close</button>
      </form>
    </dialog>
  )
}
