import { describe, expect, test } from 'vitest';
import { negotiateOutput, parseDeleteOptions, parseListQuery, parseWriteQuery, validateListOptions } from './query';

const q = (s: string) => new URLSearchParams(s);

describe('parseListQuery', () => {
  test.each([
    ['watch=true', { watch: true }],
    ['watch=True', { watch: true }],
    ['watch=1', { watch: true }],
    ['watch=false', { watch: false }],
    ['', { watch: false, allowWatchBookmarks: false }],
    ['limit=500&continue=abc', { limit: 500, continue: 'abc' }],
    ['limit=0', { limit: undefined }],
    ['labelSelector=app%3Dx,tier+in+(a,b),!gone', { labelSelector: 'app=x,tier in (a,b),!gone' }],
    ['fieldSelector=metadata.name%3Dpv1', { fieldSelector: 'metadata.name=pv1' }],
    ['resourceVersion=42&resourceVersionMatch=NotOlderThan', { resourceVersion: '42', resourceVersionMatch: 'NotOlderThan' }],
    ['timeoutSeconds=30&allowWatchBookmarks=true', { timeoutSeconds: 30, allowWatchBookmarks: true }],
  ])('%s', (query, want) => {
    expect(parseListQuery(q(query))).toMatchObject(want);
  });

  test.each([
    ['labelSelector=a+in+(b', /./],
    ['labelSelector=a%3D%3D%3Db', /./],
    ['fieldSelector=nooperator', /can't understand/],
    ['watch=yes', /ParseBool/],
    ['limit=ten', /ParseInt/],
    ['resourceVersion=abc', /invalid resource version/],
  ])('%s is a BadRequest', (query, msg) => {
    expect(() => parseListQuery(q(query))).toThrow(expect.objectContaining({ code: 'BadRequest', message: expect.stringMatching(msg) }));
  });
});

describe('validateListOptions (cases of upstream TestValidateListOptions)', () => {
  test.each([
    { name: 'list: nothing set', query: '', watch: false, want: [] },
    { name: 'list: NotOlderThan with a resourceVersion', query: 'resourceVersion=1&resourceVersionMatch=NotOlderThan', watch: false, want: [] },
    { name: 'list: Exact with a resourceVersion', query: 'resourceVersion=1&resourceVersionMatch=Exact', watch: false, want: [] },
    {
      name: 'list: a match without a resourceVersion',
      query: 'resourceVersionMatch=Exact',
      watch: false,
      want: ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    },
    {
      name: 'list: a match with continue',
      query: 'resourceVersion=1&resourceVersionMatch=NotOlderThan&continue=abc',
      watch: false,
      want: ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'],
    },
    {
      name: 'list: an unknown match',
      query: 'resourceVersion=1&resourceVersionMatch=Latest',
      watch: false,
      want: ['resourceVersionMatch: Unsupported value: "Latest": supported values: "Exact", "NotOlderThan", ""'],
    },
    {
      name: 'list: Exact at resourceVersion 0',
      query: 'resourceVersion=0&resourceVersionMatch=Exact',
      watch: false,
      want: ['resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    },
    { name: 'list: sendInitialEvents', query: 'sendInitialEvents=true', watch: false, want: ['sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'] },
    { name: 'watch: nothing set', query: '', watch: true, want: [] },
    { name: 'watch-list', query: 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', watch: true, want: [] },
    { name: 'watch: sendInitialEvents=false with NotOlderThan', query: 'sendInitialEvents=false&resourceVersionMatch=NotOlderThan', watch: true, want: [] },
    {
      name: 'watch: sendInitialEvents without a match',
      query: 'sendInitialEvents=true',
      watch: true,
      want: ['resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    },
    {
      name: 'watch: a match without sendInitialEvents',
      query: 'resourceVersion=1&resourceVersionMatch=NotOlderThan',
      watch: true,
      want: ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    },
    {
      name: 'watch: Exact',
      query: 'sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1',
      watch: true,
      want: [
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
      ],
    },
  ])('$name', ({ query, watch, want }) => {
    expect(validateListOptions(parseListQuery(q(query)), watch).map((e) => `${e.field}: ${e.message}`)).toEqual(want);
  });
});

describe('parseWriteQuery', () => {
  test.each([
    ['', { dryRun: false, fieldValidation: 'Warn' }],
    ['dryRun=All', { dryRun: true }],
    ['fieldValidation=Strict&fieldManager=kubectl', { fieldValidation: 'Strict', fieldManager: 'kubectl' }],
    ['fieldValidation=Ignore', { fieldValidation: 'Ignore' }],
  ])('%s', (query, want) => {
    expect(parseWriteQuery(q(query))).toMatchObject(want);
  });
  test.each(['dryRun=true', 'fieldValidation=Loose'])('%s is a BadRequest', (query) => {
    expect(() => parseWriteQuery(q(query))).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });
});

describe('parseDeleteOptions', () => {
  test('from the body, which wins over the query', () => {
    expect(
      parseDeleteOptions(q('dryRun=All'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', preconditions: { uid: 'u1' } }),
    ).toEqual({ dryRun: false, preconditions: { uid: 'u1' }, propagationPolicy: 'Background', gracePeriodSeconds: undefined });
  });
  test('from the query', () => {
    expect(parseDeleteOptions(q('dryRun=All&preconditions.resourceVersion=7&gracePeriodSeconds=0'), undefined)).toEqual({
      dryRun: true,
      preconditions: { uid: undefined, resourceVersion: '7' },
      propagationPolicy: undefined,
      gracePeriodSeconds: 0,
    });
  });
  test.each([
    [{ kind: 'Pod' }],
    [{ propagationPolicy: 'Sideways' }],
    [{ dryRun: 'All' }],
    [[1]],
  ])('%j is a BadRequest', (body) => {
    expect(() => parseDeleteOptions(q(''), body)).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });
});

describe('negotiateOutput', () => {
  const kubectlGet = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  test.each([
    [undefined, '', { as: 'object', yaml: false }],
    ['application/json', '', { as: 'object' }],
    ['*/*', '', { as: 'object' }],
    ['application/yaml', '', { as: 'object', yaml: true }],
    [kubectlGet, '', { as: 'table', metaVersion: 'v1', includeObject: 'Metadata' }],
    ['application/json;as=Table;v=v1beta1;g=meta.k8s.io', 'includeObject=Object', { as: 'table', metaVersion: 'v1beta1', includeObject: 'Object' }],
    ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', '', { as: 'partial' }],
    ['application/vnd.kubernetes.protobuf, application/json', '', { as: 'object', protobuf: true, fallback: { as: 'object', yaml: false } }],
    ['application/vnd.kubernetes.protobuf, */*', '', { as: 'object', protobuf: true, fallback: { as: 'object' } }],
    ['application/vnd.kubernetes.protobuf', '', { as: 'object', protobuf: true }],
    ['application/vnd.kubernetes.protobuf;stream=watch', '', { as: 'object', protobuf: true }],
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io', '', { as: 'table' }],
    ['application/json;as=Table;v=v2;g=meta.k8s.io,application/json', '', { as: 'object' }],
  ])('%s %s', (accept, query, want) => {
    expect(negotiateOutput(accept, q(query))).toMatchObject(want);
  });
  test('protobuf only when it comes first; no fallback unless a later range allows JSON', () => {
    expect(negotiateOutput('application/json, application/vnd.kubernetes.protobuf', q(''))?.protobuf).toBeFalsy();
    expect(negotiateOutput('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io', q(''))?.protobuf).toBeFalsy();
    expect(negotiateOutput('application/vnd.kubernetes.protobuf', q(''))?.fallback).toBeUndefined();
    expect(negotiateOutput('application/vnd.kubernetes.protobuf, application/json;as=Table;v=v1;g=meta.k8s.io', q(''))?.fallback).toBeUndefined();
  });
  test('nothing acceptable', () => {
    expect(negotiateOutput('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', q(''))).toBeUndefined();
    expect(negotiateOutput('text/html', q(''))).toBeUndefined();
  });
  test('a bad includeObject is a BadRequest', () => {
    expect(() => negotiateOutput('application/json', q('includeObject=All'))).toThrow(/includeObject/);
  });
});
