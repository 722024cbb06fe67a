// Maps kept only while they hold something: an empty Map costs ~190 bytes, and a server holds tens of
// thousands of idle connections whose guards and telemetry have nothing pending. (The rpc peer keeps
// its own two lines: see its forgetPending.)

/** Deletes `key` from `map`; returns the map, or undefined once it is empty (the owner then drops it). */
export function without<K, V>(map: Map<K, V>, key: K): Map<K, V> | undefined {
  map.delete(key);
  return map.size === 0 ? undefined : map;
}
