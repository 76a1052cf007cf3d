/** Round-robin with skips: how the TCP transport spreads calls over the back-end services. */

/** `isUsable` leaves an item out of this pick; `isAvoided` passes over it while a usable one is not avoided. */
export type NextInTurn<T> = (isUsable: (item: T) => boolean, isAvoided: (item: T) => boolean) => T | undefined;

/**
 * Takes `items` in turn, starting after the last one taken. When every usable item is avoided, the first of them
 * is taken (it may have recovered) and the turn stays where it was.
 */
export function roundRobin<T>(items: readonly T[]): NextInTurn<T> {
  let cursor = 0;
  return (isUsable, isAvoided) => {
    let fallback: T | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[(cursor + i) % items.length]!;
      if (!isUsable(item)) continue;
      if (isAvoided(item)) {
        fallback ??= item;
        continue;
      }
      cursor = (cursor + i + 1) % items.length;
      return item;
    }
    return fallback;
  };
}
