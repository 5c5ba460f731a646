// The inspector page: the connection bar, the tabs (server, tools, resources, prompts, skills, roots), the live panes, and
// the server's requests as dialogs.
import { useEffect, useReducer, useState } from 'preact/hooks';
import { follow } from './api.js';
import { AskDialog } from './asks.js';
import { ConnectBar, ServerTab } from './connection.js';
import { EMPTY, reduce } from './model.js';
import { LivePanes } from './panes.js';
import { PromptsTab } from './prompts.js';
import { ResourcesTab } from './resources.js';
import { RootsTab } from './roots.js';
import { SkillsTab } from './skills.js';
import { ToolsTab } from './tools.js';

type TabName = 'server' | 'tools' | 'resources' | 'prompts' | 'skills' | 'roots';
const TABS: TabName[] = ['server', 'tools', 'resources', 'prompts', 'skills', 'roots'];

export function App() {
  const [model, dispatch] = useReducer(reduce, EMPTY);
  const [tab, setTab] = useState<TabName>('server');
  useEffect(
    () =>
      follow(
        (snapshot) => dispatch({ type: 'snapshot', snapshot }),
        (event) => dispatch(event),
        (live) => dispatch({ type: 'live', live }),
      ),
    [],
  );
  const state = model.state;
  const connected = state?.status === 'connected';
  const connection = String(state?.connection ?? 0);
  const ask = model.asks[0];
  return (
    <div class="app" data-live={model.live ? 'yes' : 'no'}>
      <ConnectBar state={state} live={model.live} />
      <div class="tabs main-tabs">
        {TABS.map((name) => (
          <button
            type="button"
            key={name}
            data-tab-button={name}
            class={tab === name ? 'tab selected' : 'tab'}
            onClick={() => setTab(name)}
          >
            {name}
          </button>
        ))}
      </div>
      <main class="main">
        {tab === 'server' ? <ServerTab state={state} /> : null}
        {tab === 'tools' ? (
          <ToolsTab
            connected={connected}
            listKey={`${connection}:${model.versions.tools}`}
            progress={model.progress}
            calls={model.calls}
          />
        ) : null}
        {tab === 'resources' && state ? (
          <ResourcesTab
            state={state}
            listKey={`${connection}:${model.versions.resources}`}
            updates={model.updates}
          />
        ) : null}
        {tab === 'prompts' ? (
          <PromptsTab connected={connected} listKey={`${connection}:${model.versions.prompts}`} />
        ) : null}
        {tab === 'skills' ? (
          <SkillsTab connected={connected} listKey={`${connection}:${model.versions.resources}`} />
        ) : null}
        {tab === 'roots' && state ? <RootsTab roots={state.roots} /> : null}
      </main>
      <LivePanes model={model} onClear={(pane) => dispatch({ type: 'clear', pane })} />
      {ask ? <AskDialog key={ask.id} ask={ask} more={model.asks.length - 1} /> : null}
    </div>
  );
}
