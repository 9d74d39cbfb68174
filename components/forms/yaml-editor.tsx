'use client';
// The YAML editor (CodeMirror 6, bundled locally): syntax highlighting, and red marks on
// the lines that errors name. Also used read-only to show an object's YAML.
import { yaml } from '@codemirror/lang-yaml';
import CodeMirror, {
  Decoration,
  EditorView,
  StateEffect,
  StateField,
  type DecorationSet,
  type Extension,
  type Range,
} from '@uiw/react-codemirror';
import { forwardRef, useEffect, useImperativeHandle, useMemo, useState } from 'react';

export interface LineMark {
  /** 1-based line. */
  line: number;
  message: string;
  field?: string;
}

const setMarks = StateEffect.define<LineMark[]>();

const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    let next = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setMarks)) continue;
      const byLine = new Map<number, LineMark[]>();
      for (const m of e.value) {
        if (m.line < 1 || m.line > tr.state.doc.lines) continue;
        byLine.set(m.line, [...(byLine.get(m.line) ?? []), m]);
      }
      const ranges: Range<Decoration>[] = [...byLine.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([line, ms]) =>
          Decoration.line({
            attributes: {
              class: 'cm-stowage-error-line',
              title: ms.map((m) => (m.field ? `${m.field}: ${m.message}` : m.message)).join('\n'),
              'data-error-field': ms.map((m) => m.field ?? '').join(' '),
            },
          }).range(tr.state.doc.line(line).from),
        );
      next = Decoration.set(ranges);
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

export interface YamlEditorHandle {
  /** Moves the cursor to a line and shows it. */
  jumpTo(line: number): void;
}

export const YamlEditor = forwardRef<
  YamlEditorHandle,
  {
    value: string;
    onChange?: (v: string) => void;
    readOnly?: boolean;
    marks?: LineMark[];
    height?: string;
    minHeight?: string;
    label?: string;
    testId?: string;
  }
>(function YamlEditor({ value, onChange, readOnly = false, marks = [], height, minHeight, label = 'YAML', testId = 'yaml-editor' }, ref) {
  const [view, setView] = useState<EditorView | null>(null);
  const extensions = useMemo<Extension[]>(
    () => [
      yaml(),
      marksField,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
    ],
    [label],
  );

  const marksKey = JSON.stringify(marks);
  useEffect(() => {
    view?.dispatch({ effects: setMarks.of(marks) });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- marksKey stands for marks: a new array with the same marks is no change
  }, [view, marksKey]);

  useImperativeHandle(
    ref,
    () => ({
      jumpTo(line: number) {
        if (!view || line < 1 || line > view.state.doc.lines) return;
        const l = view.state.doc.line(line);
        view.dispatch({ selection: { anchor: l.from, head: l.to }, scrollIntoView: true });
        view.focus();
      },
    }),
    [view],
  );

  return (
    <div
      data-testid={testId}
      data-readonly={readOnly ? 'true' : 'false'}
      // A light editor in both themes: its syntax colours are chosen for a light page, so its
      // text colour must not be inherited from a dark one.
      style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, overflow: 'hidden', color: '#1f2328', background: '#fff' }}
    >
      <CodeMirror
        theme="light"
        value={value}
        onChange={onChange}
        readOnly={readOnly}
        editable={!readOnly}
        extensions={extensions}
        height={height}
        minHeight={minHeight}
        basicSetup={{
          foldGutter: true,
          highlightActiveLine: !readOnly,
          highlightActiveLineGutter: !readOnly,
          autocompletion: false,
          searchKeymap: true,
        }}
        onCreateEditor={(v) => setView(v)}
      />
    </div>
  );
});
