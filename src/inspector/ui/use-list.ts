import { useEffect, useState } from 'preact/hooks';
import { act } from './api.js';

/** A server list (`tools`, `resources`, …) loaded on each connection and each change the server announces. */
export function useList<T>(
  name: string,
  connected: boolean,
  key: string,
): { items: T[]; error?: string; reload: () => void } {
  const [items, setItems] = useState<T[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!connected) {
      setItems([]);
      return;
    }
    let live = true;
    act<T[]>(name).then(
      (list) => {
        if (!live) return;
        setItems(list);
        setError(undefined);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [connected, key, tick]);
  const out: { items: T[]; error?: string; reload: () => void } = {
    items,
    reload: () => setTick((t) => t + 1),
  };
  if (error !== undefined) out.error = error;
  return out;
}
