/// The Redis Function library `reorder` (Lua), loaded with `FUNCTION LOAD REPLACE` at startup;
/// functions persist with the data set (RDB and AOF). docs/CLUSTER.md describes each function.
///
/// Rules the Lua keeps: numbers go to Redis through `string.format('%d', …)` (Lua 5.1 would write
/// 1e+15 for large ones); `HGET` of a missing field is `false`; every key a function touches is
/// one of its KEYS, all with the room's hash tag.
public enum ClusterFunctions {
  /// The library's name.
  public static let library = "reorder"

  /// Appends one op (KEYS log, meta, ids; ARGV epoch, op key, node id, payload, creates, until).
  public static let append = "reorder_append"
  /// Writes a whole board as a room's new history, unless it has ops and replacing was not asked
  /// for (KEYS log, meta, ids, snapshot; ARGV epoch, replace, node id, snapshot bytes, then op
  /// key, payload pairs).
  public static let putBoard = "reorder_board_put"
  /// Deletes every key of a room that has ops (KEYS meta, then the room's other keys).
  public static let deleteBoard = "reorder_board_delete"
  /// Removes the oldest log entries below a seq and their op ids (KEYS log, meta, ids; ARGV seq, count).
  public static let trim = "reorder_trim"
  /// Stores a snapshot unless a newer one is stored (KEYS snapshot, meta; ARGV seq, bytes).
  public static let putSnapshot = "reorder_snapshot"
  /// Takes the lease, or renews it when the caller holds it (KEYS lease; ARGV node id, ms).
  public static let acquireLease = "reorder_lease_acquire"
  /// Renews the lease only for its holder (KEYS lease; ARGV node id, ms).
  public static let renewLease = "reorder_lease_renew"
  /// Releases the lease only for its holder (KEYS lease; ARGV node id).
  public static let releaseLease = "reorder_lease_release"
  /// Adds or replaces sessions (KEYS roster, expiry; ARGV expiry ms, then session, peer JSON, …).
  public static let putRoster = "reorder_roster_put"
  /// Pushes back the expiry of sessions still listed (KEYS roster, expiry; ARGV expiry ms, sessions…).
  public static let refreshRoster = "reorder_roster_refresh"
  /// Removes sessions (KEYS roster, expiry; ARGV sessions…).
  public static let removeRoster = "reorder_roster_remove"
  /// Removes and returns the sessions expired at a time (KEYS roster, expiry; ARGV now ms).
  public static let expireRoster = "reorder_roster_expire"
  /// The sessions not expired at a time, with their peers (KEYS roster, expiry; ARGV now ms).
  public static let listRoster = "reorder_roster_list"

  /// The library's source.
  public static let source = #"""
    #!lua name=reorder

    local function num(n) return string.format('%d', n) end

    -- KEYS log, meta, ids; ARGV epoch, op key, node id, payload, creates ('0': the op was made on
    -- a replica with applied ops, so it must not start a history of its own; absent counts as '1'),
    -- until (the highest seq the op may get: the first compaction boundary after the state it was
    -- made on; absent or '0': any). The epoch check, the idempotency check, the seq and the XADD
    -- are one atomic step. A room without meta has no history (never made, or deleted): only an op
    -- made at seq 0 starts one. An op beyond its until is refused 'STALE <until>' with nothing
    -- written (its key stays free): its node makes it again on the board compacted there.
    local function append(keys, args)
      local log, meta, ids = keys[1], keys[2], keys[3]
      local epoch, key, node, payload = args[1], args[2], args[3], args[4]
      local current = redis.call('HGET', meta, 'epoch')
      if current and current ~= epoch then
        return redis.error_reply('EPOCH ' .. current)
      end
      if not current then
        if args[5] == '0' then return redis.error_reply('EPOCH ') end
        redis.call('HSET', meta, 'epoch', epoch)
      end
      local known = redis.call('HGET', ids, key)
      if known then return {tonumber(known), 'known'} end
      local seq = (tonumber(redis.call('HGET', meta, 'seq')) or 0) + 1
      local limit = tonumber(args[6] or '0') or 0
      if limit > 0 and seq > limit then return redis.error_reply('STALE ' .. num(limit)) end
      redis.call('XADD', log, num(seq) .. '-1', 'node', node, 'key', key, 'op', payload, 'epoch', epoch)
      redis.call('HSET', ids, key, num(seq))
      redis.call('HSET', meta, 'seq', num(seq))
      return {seq, 'applied'}
    end

    -- KEYS log, meta, ids, snapshot, bases; ARGV epoch, replace ('1' or '0'), node id, snapshot
    -- bytes, then op key, payload pairs (ops 1, 2, …). A room with ops keeps them unless replace is
    -- '1'; otherwise its log, op ids, meta and snapshots are replaced by the board's in one step.
    local function board_put(keys, args)
      local log, meta, ids, snap, bases = keys[1], keys[2], keys[3], keys[4], keys[5]
      local epoch, replace, node, bytes = args[1], args[2], args[3], args[4]
      local had = (tonumber(redis.call('HGET', meta, 'seq')) or 0) > 0
      if had and replace ~= '1' then return 'exists' end
      redis.call('DEL', log, meta, ids, snap, bases)
      local seq = 0
      for i = 5, #args - 1, 2 do
        seq = seq + 1
        redis.call('XADD', log, num(seq) .. '-1', 'node', node, 'key', args[i], 'op', args[i + 1], 'epoch', epoch)
        redis.call('HSET', ids, args[i], num(seq))
      end
      redis.call('HSET', meta, 'epoch', epoch, 'seq', num(seq), 'snapshot_seq', num(seq))
      redis.call('HSET', snap, 'seq', num(seq), 'bytes', bytes)
      redis.call('HSET', bases, num(seq), bytes)
      if had then return 'replaced' end
      return 'created'
    end

    -- KEYS meta, then every other key of the room. Deletes them all when the room has ops.
    -- Replies 1 when it did, 0 when the room had none.
    local function board_delete(keys, args)
      if (tonumber(redis.call('HGET', keys[1], 'seq')) or 0) == 0 then return 0 end
      redis.call('DEL', unpack(keys))
      return 1
    end

    -- KEYS log, meta, ids; ARGV keep (first seq kept), count (most entries removed per call).
    -- Reads the op keys from the entries it removes, so the ids hash needs no index of its own.
    -- Replies {removed, highest seq trimmed so far}; a caller repeats while removed == count.
    local function trim(keys, args)
      local log, meta, ids = keys[1], keys[2], keys[3]
      local keep, count = tonumber(args[1]), tonumber(args[2])
      local trimmed = tonumber(redis.call('HGET', meta, 'trimmed_seq')) or 0
      if keep < 2 or count < 1 then return {0, trimmed} end
      local old = redis.call('XRANGE', log, '-', num(keep - 1) .. '-1', 'COUNT', count)
      if #old == 0 then return {0, trimmed} end
      for _, entry in ipairs(old) do
        local fields = entry[2]
        for i = 1, #fields, 2 do
          if fields[i] == 'key' then redis.call('HDEL', ids, fields[i + 1]) end
        end
      end
      local last = tonumber(string.match(old[#old][1], '^(%d+)'))
      redis.call('XTRIM', log, 'MINID', num(last + 1) .. '-0')
      if last > trimmed then
        trimmed = last
        redis.call('HSET', meta, 'trimmed_seq', num(last))
      end
      return {#old, trimmed}
    end

    -- KEYS snapshot, meta, bases; ARGV seq, bytes. Replies 1 when stored (as the latest and as a
    -- base), 0 when a newer one is there. A seq beyond the log's is of a history that was replaced
    -- meanwhile: refused too.
    local function snapshot(keys, args)
      local seq = tonumber(args[1])
      local stored = tonumber(redis.call('HGET', keys[1], 'seq'))
      if stored and stored >= seq then return 0 end
      local last = tonumber(redis.call('HGET', keys[2], 'seq'))
      if last and seq > last then return 0 end
      redis.call('HSET', keys[1], 'seq', num(seq), 'bytes', args[2])
      redis.call('HSET', keys[2], 'snapshot_seq', num(seq))
      redis.call('HSET', keys[3], num(seq), args[2])
      return 1
    end

    -- KEYS lease; ARGV node id, ms. Replies the holder after the call.
    local function lease_acquire(keys, args)
      if redis.call('SET', keys[1], args[1], 'NX', 'PX', args[2]) then return args[1] end
      local holder = redis.call('GET', keys[1])
      if holder == args[1] then redis.call('PEXPIRE', keys[1], args[2]) end
      return holder
    end

    -- KEYS lease; ARGV node id, ms. Replies 1 when renewed, 0 when another node holds it or none.
    local function lease_renew(keys, args)
      if redis.call('GET', keys[1]) ~= args[1] then return 0 end
      redis.call('PEXPIRE', keys[1], args[2])
      return 1
    end

    -- KEYS lease; ARGV node id. Replies 1 when released, 0 when the caller did not hold it.
    local function lease_release(keys, args)
      if redis.call('GET', keys[1]) ~= args[1] then return 0 end
      redis.call('DEL', keys[1])
      return 1
    end

    -- KEYS roster, expiry; ARGV expiry ms, then session, peer JSON pairs.
    local function roster_put(keys, args)
      for i = 2, #args, 2 do
        redis.call('HSET', keys[1], args[i], args[i + 1])
        redis.call('ZADD', keys[2], args[1], args[i])
      end
      return (#args - 1) / 2
    end

    -- KEYS roster, expiry; ARGV expiry ms, sessions. Replies the sessions no longer listed
    -- (expired by another node): their node puts them again.
    local function roster_refresh(keys, args)
      local missing = {}
      for i = 2, #args do
        if redis.call('HEXISTS', keys[1], args[i]) == 1 then
          redis.call('ZADD', keys[2], args[1], args[i])
        else
          missing[#missing + 1] = args[i]
        end
      end
      return missing
    end

    -- KEYS roster, expiry; ARGV sessions.
    local function roster_remove(keys, args)
      local removed = 0
      for i = 1, #args do
        removed = removed + redis.call('HDEL', keys[1], args[i])
        redis.call('ZREM', keys[2], args[i])
      end
      return removed
    end

    -- KEYS roster, expiry; ARGV now ms. Replies the sessions removed.
    local function roster_expire(keys, args)
      local expired = redis.call('ZRANGEBYSCORE', keys[2], '-inf', args[1])
      for _, session in ipairs(expired) do
        redis.call('HDEL', keys[1], session)
        redis.call('ZREM', keys[2], session)
      end
      return expired
    end

    -- KEYS roster, expiry; ARGV now ms. Replies session, peer JSON pairs of the live sessions.
    local function roster_list(keys, args)
      local live = redis.call('ZRANGEBYSCORE', keys[2], '(' .. args[1], '+inf')
      local reply = {}
      for _, session in ipairs(live) do
        local peer = redis.call('HGET', keys[1], session)
        if peer then
          reply[#reply + 1] = session
          reply[#reply + 1] = peer
        end
      end
      return reply
    end

    redis.register_function('reorder_append', append)
    redis.register_function('reorder_board_put', board_put)
    redis.register_function('reorder_board_delete', board_delete)
    redis.register_function('reorder_trim', trim)
    redis.register_function('reorder_snapshot', snapshot)
    redis.register_function('reorder_lease_acquire', lease_acquire)
    redis.register_function('reorder_lease_renew', lease_renew)
    redis.register_function('reorder_lease_release', lease_release)
    redis.register_function('reorder_roster_put', roster_put)
    redis.register_function('reorder_roster_refresh', roster_refresh)
    redis.register_function('reorder_roster_remove', roster_remove)
    redis.register_function('reorder_roster_expire', roster_expire)
    redis.register_function{function_name = 'reorder_roster_list', callback = roster_list, flags = {'no-writes'}}
    """#
}
