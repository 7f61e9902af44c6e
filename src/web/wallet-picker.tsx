/** Choosing the wallet that signs: a devnet demo account (on the devnet) or the browser's own. */
import { DEVNET_DEMO_ACCOUNTS } from './networks.js';
import { setWallet, useWallet, type WalletChoice } from './wallet-choice.js';

export function WalletPicker({ network }: { network: string }) {
  const wallet = useWallet();
  const value = wallet.choice.kind === 'demo' ? `demo:${wallet.choice.index}` : 'injected';
  const choices: { value: string; label: string; choice: WalletChoice }[] = [
    ...(network === 'devnet'
      ? Array.from({ length: DEVNET_DEMO_ACCOUNTS }, (_, index) => ({
          value: `demo:${index}`,
          label: `Devnet demo account #${index}`,
          choice: { kind: 'demo', index } as WalletChoice,
        }))
      : []),
    { value: 'injected', label: 'Browser wallet (EIP-1193)', choice: { kind: 'injected' } },
  ];
  return (
    <label>
      Sign with{' '}
      <select
        value={value}
        onChange={(e) => {
          const picked = choices.find((c) => c.value === (e.target as HTMLSelectElement).value);
          if (picked) setWallet({ choice: picked.choice, address: null });
        }}
      >
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
      {wallet.address ? <span class="mono"> {wallet.address}</span> : null}
    </label>
  );
}
