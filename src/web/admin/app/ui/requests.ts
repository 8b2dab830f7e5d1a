/** Hooks that run typed-client requests for a screen: loading data, and submitting changes. */
import type { Effect } from "effect"
import { useCallback, useEffect, useState } from "preact/hooks"

import { everyItem } from "../../../../client/Pages.js"
import { type ApiClient, call, type Outcome } from "../core/api.js"
import type { Failure } from "../core/failure.js"

export type Loaded<A> =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly failure: Failure }
  | { readonly state: "ready"; readonly value: A }

/**
 * Loads once on mount; `reload` fetches again (after a change) and keeps the old value meanwhile.
 * `refresh` is the live stream's reload (core/live.ts): a failure keeps what is shown, since the
 * operator did not ask and may be typing in a form inside the list.
 */
export const useLoad = <A, E>(request: (api: ApiClient) => Effect.Effect<A, E>) => {
  const [loaded, setLoaded] = useState<Loaded<A>>({ state: "loading" })
  const reload = useCallback(async () => {
    const outcome = await call(request)
    setLoaded(outcome.ok ? { state: "ready", value: outcome.value } : { state: "failed", failure: outcome.failure })
  }, [])
  const refresh = useCallback(async () => {
    const outcome = await call(request)
    if (outcome.ok) setLoaded({ state: "ready", value: outcome.value })
  }, [])
  useEffect(() => {
    void reload()
  }, [reload])
  return [loaded, reload, refresh] as const
}

/**
 * A screen's list with its status line: `changed(text)` says what happened and loads the list
 * again.
 */
export const useListScreen = <A, E>(request: (api: ApiClient) => Effect.Effect<A, E>) => {
  const [loaded, reload, refresh] = useLoad(request)
  const [message, setMessage] = useState("")
  const changed = (text: string) => {
    setMessage(text)
    void reload()
  }
  return { loaded, reload, refresh, message, changed }
}

/** The components to choose from in a form: empty until they have loaded. */
export const useComponentChoices = () => {
  const [components] = useLoad((api) => everyItem(api.components.list))
  return components.state === "ready" ? components.value : []
}

/** A form's submission: its failure (with per-field messages) and whether it is in flight. */
export const useSubmit = () => {
  const [failure, setFailure] = useState<Failure | null>(null)
  const [busy, setBusy] = useState(false)
  // Any error: a create and an update of one form may fail in different ways (a create may meet a reused key).
  const submit = useCallback(async <A>(request: (api: ApiClient) => Effect.Effect<A, unknown>): Promise<Outcome<A>> => {
    setBusy(true)
    const outcome = await call(request)
    setBusy(false)
    setFailure(outcome.ok ? null : outcome.failure)
    return outcome
  }, [])
  const fieldError = (name: string): string | undefined => failure?.fields[name]
  return { failure, busy, submit, fieldError, clear: () => setFailure(null) }
}

/**
 * Runs `read` every `everyMs` while the tab is visible, and at once when it is shown again: a
 * hidden tab asks nothing and catches up when it comes back. (The first read is the screen's own.)
 */
export const useReadWhileVisible = (read: () => unknown, everyMs: number) => {
  useEffect(() => {
    const visible = () => document.visibilityState === "visible"
    const timer = setInterval(() => {
      if (visible()) void read()
    }, everyMs)
    const onVisibility = () => {
      if (visible()) void read()
    }
    document.addEventListener("visibilitychange", onVisibility)
    return () => {
      clearInterval(timer)
      document.removeEventListener("visibilitychange", onVisibility)
    }
  }, [read, everyMs])
}
