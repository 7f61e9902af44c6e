/**
 * Which wallet signs in this browser: one of the devnet's demo accounts, or the browser's
 * injected EIP-1193 wallet. Kept across visits; the connected address is known once a page
 * connected it (./wallet.ts, loaded only by the pages that sign).
 */
import { useEffect, useState } from 'preact/hooks';

export type WalletChoice = { kind: 'demo'; index: number } | { kind: 'injected' };

export interface WalletState {
  choice: WalletChoice;
  /** The address the choice signs as, once connected. */
  address: string | null;
}

const KEY = 'batchbook.wallet';
const listeners = new Set<(state: WalletState) => void>();

function load(): WalletState {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as WalletState | null;
    if (saved && (saved.choice.kind === 'injected' || saved.choice.kind === 'demo')) return saved;
  } catch {
    // A damaged entry is forgotten.
  }
  return { choice: { kind: 'demo', index: 0 }, address: null };
}

let state = load();

export function setWallet(next: WalletState): void {
  state = next;
  localStorage.setItem(KEY, JSON.stringify(next));
  for (const listener of listeners) listener(next);
}

export function useWallet(): WalletState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    return () => void listeners.delete(setCurrent);
  }, []);
  return current;
}
