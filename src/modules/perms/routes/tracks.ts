import { OkSchema } from '../../../http/schemas';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { CreateTrackBody, StepSchema, TrackListSchema, TrackParams, TrackSchema, TrackStepParams } from '../model';
import type { PermsRuntime } from '../runtime';
import { trackView } from '../views';
import { ADMIN_GRANTS, authorOf, MANAGE, ok, PREFIX, Refusals, TAG, uuidOf, VIEW, WithNotFound } from './common';

const STEP_SUMMARY =
  'the player leaves the group they hold at their rank and gets the next one unscoped: {success, previousGroup, newGroup, message}; ' +
  '200 with success false when there is no further step; 404 PERMISSION_TRACK_NOT_FOUND or PLAYER_NOT_FOUND. Publishes ';

/** Tracks: ordered ladders of groups, and moving players along them. */
export function trackRoutes(runtime: PermsRuntime): AnyRoute[] {
  const { state, tracks } = runtime;
  return [
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/tracks`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Every track: {tracks: [{name, groups (lowest rank first)}], total}',
      response: { 200: TrackListSchema, ...Refusals },
      handler: () => {
        const list = state.tracks().map((track) => trackView(state, track));
        return { tracks: list, total: list.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/tracks/:name`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'One track by name, any case (404 PERMISSION_TRACK_NOT_FOUND)',
      params: TrackParams,
      response: { 200: TrackSchema, ...WithNotFound },
      handler: ({ params }) => trackView(state, state.track(params.name)),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/tracks`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Create a track of at least two existing groups, lowest rank first; 201; publishes PERMISSION_TRACK_CREATED',
      body: CreateTrackBody,
      response: { 201: OkSchema, ...Refusals },
      handler: ({ body, actor, principal, set }) => {
        const track = trackView(state, tracks.create(body.name, body.groups, authorOf(actor, principal)));
        set.status = 201;
        return ok(`created track ${track.name}: ${track.groups.join(' → ')}`);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/tracks/:name`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Delete a track (the groups and memberships stay); publishes PERMISSION_TRACK_DELETED',
      params: TrackParams,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, actor, principal }) => {
        const name = state.track(params.name).name;
        tracks.delete(name, authorOf(actor, principal));
        return ok(`deleted track ${name}`);
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/tracks/:name/promote/:uuid`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: `Promote a player one step up a track: ${STEP_SUMMARY}PLAYER_PROMOTED and PLAYER_PERMISSIONS_UPDATED${ADMIN_GRANTS}`,
      params: TrackStepParams,
      response: { 200: StepSchema, ...WithNotFound },
      handler: ({ params, actor, principal }) => tracks.promote(params.name, uuidOf(params.uuid), authorOf(actor, principal)),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/tracks/:name/demote/:uuid`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: `Demote a player one step down a track: ${STEP_SUMMARY}PLAYER_DEMOTED and PLAYER_PERMISSIONS_UPDATED`,
      params: TrackStepParams,
      response: { 200: StepSchema, ...WithNotFound },
      handler: ({ params, actor, principal }) => tracks.demote(params.name, uuidOf(params.uuid), authorOf(actor, principal)),
    }),
  ];
}
