/**
 * Bundle records come with keys their authors chose (`custom` keys, CSV headers), and
 * `__proto__` is a valid JSON key: `JSON.parse` keeps it as an own property, but a plain
 * assignment `object[key] = value` with that key sets the object's prototype instead, so
 * the value would be lost without a word (and a nested assignment through it would write
 * to Object.prototype). Records built from such keys are built with these.
 */

/** `target[key] = value` as an own, enumerable property whatever the key. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Only the one key that needs it pays for defineProperty: this runs for every custom value of an import.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** `target[key]` if it is the target's own property, else undefined (never an inherited one). */
export const getOwn = (target: Record<string, unknown>, key: string): unknown => (Object.hasOwn(target, key) ? target[key] : undefined);
