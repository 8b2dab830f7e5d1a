/**
 * Screens are addressed by the URL fragment (`/admin#/webhooks`): the server serves one page
 * for all of them, and back/forward and bookmarks work.
 */
import { useEffect, useState } from "preact/hooks"

const current = () => location.hash.startsWith("#/") ? location.hash.slice(2) : ""

export const useRoute = (): string => {
  const [route, setRoute] = useState(current)
  useEffect(() => {
    const update = () => setRoute(current())
    addEventListener("hashchange", update)
    return () => removeEventListener("hashchange", update)
  }, [])
  return route
}

export const href = (path: string) => `#/${path}`
