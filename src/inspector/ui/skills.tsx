// The Skills tab: a target's skills (SEP-2640), one skill's manifest with each file checked against its digest, a
// file's text, and on the configured host whether the person approved this very manifest.
import { useEffect, useState } from 'preact/hooks';
import type { SkillList, SkillRow, SkillView } from '../skills.js';
import { act } from './api.js';

export function SkillsTab(props: { connected: boolean; listKey: string }) {
  const [list, setList] = useState<SkillList | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!props.connected) {
      setList(undefined);
      return;
    }
    let live = true;
    act<SkillList>('skills').then(
      (l) => {
        if (!live) return;
        setList(l);
        setError(undefined);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [props.connected, props.listKey]);
  const skills = list?.skills ?? [];
  const skill = skills.find((s) => s.name === selected);
  return (
    <section class="split" data-tab="skills">
      <nav class="list">
        <div class="list-head">{skills.length} skills</div>
        {error ? <p class="error-text">{error}</p> : null}
        {list && !list.declared ? (
          <p class="muted" data-skills-none>
            The server declares no skills (the io.modelcontextprotocol/skills extension).
          </p>
        ) : null}
        {skills.map((s) => (
          <button
            type="button"
            key={s.name}
            data-skill={s.name}
            class={s.name === selected ? 'item selected' : 'item'}
            onClick={() => setSelected(s.name)}
          >
            <strong>{s.name}</strong>
            <span class="muted">{s.description}</span>
            {s.approved === undefined ? null : <Approval approved={s.approved} />}
          </button>
        ))}
      </nav>
      <div class="detail">
        {skill ? (
          <SkillDetail key={`${skill.name}:${props.listKey}`} skill={skill} />
        ) : (
          <p class="muted">Pick a skill.</p>
        )}
      </div>
    </section>
  );
}

function Approval(props: { approved: boolean }) {
  return props.approved ? (
    <span class="badge" data-skill-approval="approved">
      approved
    </span>
  ) : (
    <span class="badge error" data-skill-approval="not-approved">
      not approved
    </span>
  );
}

function SkillDetail(props: { skill: SkillRow }) {
  const [view, setView] = useState<SkillView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [file, setFile] = useState<{ path: string; text?: string; note?: string } | undefined>(undefined);
  useEffect(() => {
    let live = true;
    act<SkillView>('skill', { name: props.skill.name }).then(
      (v) => live && setView(v),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [props.skill.name]);
  const open = (path: string) =>
    act<{ size: number; mimeType?: string; text?: string; truncated?: boolean }>('skill-file', {
      name: props.skill.name,
      path,
    }).then(
      (f) =>
        setFile(
          f.text === undefined
            ? { path, note: `${f.size} bytes of ${f.mimeType ?? 'binary content'} (not text)` }
            : { path, text: f.text, ...(f.truncated ? { note: 'cut short' } : {}) },
        ),
      (e: Error) => setFile({ path, note: e.message }),
    );
  const s = view?.skill ?? props.skill;
  const refused = view?.files.filter((f) => f.check === 'refused').length ?? 0;
  return (
    <div data-skill-detail={s.name}>
      <h3>{s.name}</h3>
      <p>
        <code>{s.uri}</code>
        {s.server === undefined ? null : (
          <span class="muted">
            {' '}
            · from the server <strong>{s.server}</strong>
          </span>
        )}
      </p>
      <p data-skill-approval-line>
        {s.approved === undefined ? (
          <span class="muted" data-skill-approval="none">
            Approval: kept by a host (inspect the configured host to see it); this server alone keeps none.
          </span>
        ) : (
          <>
            Approval: <Approval approved={s.approved} />{' '}
            <span class="muted">
              {s.approved
                ? 'this very manifest (a changed file or frontmatter is asked about again)'
                : 'asked before the model first loads it'}
              {s.digest ? (
                <>
                  {' '}
                  · manifest digest <code>{s.digest}</code>
                </>
              ) : null}
            </span>
          </>
        )}
      </p>
      {error ? (
        <p class="error-text" data-skill-error>
          {error}
        </p>
      ) : null}
      {view ? (
        <>
          <table class="grid" data-skill-frontmatter>
            <tbody>
              {Object.entries(view.entry.frontmatter).map(([key, value]) => (
                <tr key={key}>
                  <th>{key}</th>
                  <td>{typeof value === 'string' ? value : JSON.stringify(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {view.entry.resources === 'dynamic' ? (
            <p class="muted" data-skill-dynamic>
              Files: dynamic (the server publishes no digests, so nothing can be checked).
            </p>
          ) : (
            <>
              <p
                data-skill-checked={refused === 0 ? 'ok' : 'refused'}
                class={refused ? 'error-text' : 'muted'}
              >
                {refused === 0
                  ? `Every file read matches its listed size and SHA-256 digest.`
                  : `${refused} of ${view.files.length} files do not match their listed digest: refused.`}
              </p>
              <table class="grid" data-skill-files>
                <thead>
                  <tr>
                    <th>File</th>
                    <th>Size</th>
                    <th>Digest</th>
                    <th>Check</th>
                  </tr>
                </thead>
                <tbody>
                  {view.files.map((f) => (
                    <tr key={f.uri} data-skill-file={f.path} data-check={f.check}>
                      <td>
                        <button
                          type="button"
                          class="link"
                          data-skill-open={f.path}
                          onClick={() => open(f.path)}
                        >
                          {f.path}
                        </button>
                      </td>
                      <td>{f.size}</td>
                      <td>
                        <code>{f.digest}</code>
                      </td>
                      <td class={f.check === 'refused' ? 'error-text' : ''}>
                        {f.check === 'ok'
                          ? 'digest ok'
                          : f.check === 'refused'
                            ? `refused: ${f.problem}`
                            : 'unchecked'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </>
      ) : error ? null : (
        <p class="muted">Reading the skill and checking its files…</p>
      )}
      {file ? (
        <div data-skill-file-view={file.path}>
          <h4>{file.path}</h4>
          {file.note ? <p class={file.text === undefined ? 'error-text' : 'muted'}>{file.note}</p> : null}
          {file.text === undefined ? null : <pre data-skill-file-text>{file.text}</pre>}
        </div>
      ) : null}
    </div>
  );
}
