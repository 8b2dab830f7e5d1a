/**
 * The frame around every screen: the header (the dashboard's name, the current screen's title on
 * phones, the search, who is signed in), the navigation, the live connection's banner, the
 * screen itself, and the keyboard shortcuts. The navigation is a sidebar
 * listing the screens by group (`screenGroups`), with the current one marked and the count of
 * open incidents beside Incidents. Below 768 px it folds behind a **Menu** button: a disclosure
 * (no dialog, nothing behind it is made inert) that Escape closes, focus moving into it when it
 * opens and back to the button when it closes.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"

import { href } from "../core/router.js"
import { type Screen, screenGroups } from "../core/Screen.js"
import { LiveBanner } from "./LiveBanner.js"
import { Search } from "./Search.js"
import { Shortcuts } from "./Shortcuts.js"

/** A number shown beside a screen's name, and what it counts ("open"). */
export interface NavigationCount {
  readonly value: number
  readonly counts: string
}

export const Shell = (props: {
  /** The screens to list (those the role may read), in order. */
  readonly screens: ReadonlyArray<Screen>
  readonly current: Screen
  /** Counts by screen path. */
  readonly counts: Readonly<Record<string, NavigationCount | null>>
  /** The header's end: who is signed in, Your account, Sign out. */
  readonly account: ComponentChildren
  readonly children: ComponentChildren
}) => {
  const main = useRef<HTMLElement>(null)
  return (
    <div class="shell">
      <a
        class="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault()
          main.current?.focus()
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <p class="brand">Status admin</p>
        <p class="current-screen">{props.current.title}</p>
        <HeaderCounts screens={props.screens} counts={props.counts} />
        <Search />
        {props.account}
      </header>
      <Navigation screens={props.screens} current={props.current} counts={props.counts} />
      <main id="main" ref={main} tabIndex={-1}>
        <LiveBanner />
        {props.children}
      </main>
      <Shortcuts />
    </div>
  )
}

/**
 * On phones, where the sidebar is folded, what the navigation counts (open incidents) stands in
 * the header instead, linking to its screen: in view from every screen at every width.
 */
const HeaderCounts = (props: {
  readonly screens: ReadonlyArray<Screen>
  readonly counts: Readonly<Record<string, NavigationCount | null>>
}) => {
  const counted = props.screens.flatMap((screen) => {
    const count = props.counts[screen.path]
    return count && count.value > 0 ? [{ screen, count }] : []
  })
  if (counted.length === 0) return null
  return (
    <p class="header-counts">
      {counted.map(({ count, screen }) => (
        <a key={screen.path} href={href(screen.path)}>
          {screen.title} <span class="nav-count active">{count.value}</span>
          <span class="visually-hidden">{` ${count.counts}`}</span>
        </a>
      ))}
    </p>
  )
}

const Navigation = (props: {
  readonly screens: ReadonlyArray<Screen>
  readonly current: Screen
  readonly counts: Readonly<Record<string, NavigationCount | null>>
}) => {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const menu = useRef<HTMLDivElement>(null)

  /** Folds the menu; focus returns to the button unless it is somewhere else than the menu already. */
  const close = () => {
    const focusInMenu = menu.current?.contains(document.activeElement) ?? false
    setOpen(false)
    if (focusInMenu || document.activeElement === document.body) button.current?.focus()
  }

  // Opened: focus goes to its first link.
  useEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>("a")?.focus()
  }, [open])

  useEffect(() => {
    if (!open) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return
      event.preventDefault()
      setOpen(false)
      button.current?.focus()
    }
    document.addEventListener("keydown", onKeyDown)
    return () => document.removeEventListener("keydown", onKeyDown)
  }, [open])

  // Another screen by any way (a link in it, back and forward): the menu folds.
  useEffect(() => {
    if (open) close()
  }, [props.current])

  const groups = screenGroups
    .map((group) => ({ ...group, screens: props.screens.filter((screen) => screen.group === group.id) }))
    .filter((group) => group.screens.length > 0)

  return (
    <nav aria-label="Main" class="sidebar">
      <button
        ref={button}
        type="button"
        class="menu-button"
        aria-expanded={open}
        aria-controls="main-menu"
        onClick={() => (open ? close() : setOpen(true))}
      >
        <span class="menu-icon" aria-hidden="true" />
        Menu
      </button>
      <div id="main-menu" ref={menu} class={open ? "menu open" : "menu"}>
        {groups.map((group) => (
          <div key={group.id} class="nav-group">
            <p class="nav-group-label" id={`nav-group-${group.id}`}>{group.label}</p>
            <ul aria-labelledby={`nav-group-${group.id}`}>
              {group.screens.map((screen) => {
                const count = props.counts[screen.path]
                return (
                  <li key={screen.path}>
                    <a
                      href={href(screen.path)}
                      aria-current={screen === props.current ? "page" : undefined}
                      // The same screen again changes no route: the menu folds all the same.
                      onClick={() => {
                        if (open) close()
                      }}
                    >
                      {screen.title}
                      {count && (
                        <>
                          {" "}
                          <span class={count.value > 0 ? "nav-count active" : "nav-count"}>
                            {count.value}
                            <span class="visually-hidden">{` ${count.counts}`}</span>
                          </span>
                        </>
                      )}
                    </a>
                  </li>
                )
              })}
            </ul>
          </div>
        ))}
      </div>
    </nav>
  )
}
