/** State reads at a height over an App, through the provider layer as the node reads them. */
import type { App } from '../../src/app/index.js';
import { StateProvider } from '../../src/provider/index.js';

/** The provider's state view of `app`. */
export function stateOf(app: App): StateProvider {
  return new StateProvider(app);
}
