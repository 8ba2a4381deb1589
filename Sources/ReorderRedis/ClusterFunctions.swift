/// The Redis Function library `reorder` (Lua), loaded with `FUNCTION LOAD REPLACE` at startup;
/// functions persist with the data set (RDB and AOF). docs/CLUSTER.md describes each function.
///
/// Rules the Lua keeps: numbers go to Redis through `string.format('%d', …)` (Lua 5.1 would write
/// 1e+15 for large ones); `HGET` of a missing field is `false`; every key a function touches is
/// one of its KEYS, all with the room's hash tag.
public enum ClusterFunctions {
  /// The library's name.
  public static let library = "reorder"

  /// Appends one op and publishes it on the room's appends channel (KEYS log, meta, ids; ARGV
  /// epoch, op key, node id, payload, creates, until, channel).
  public static let append = "reorder_append"
  /// Appends several ops of one room in order, each as `reorder_append` does, in one call (KEYS
  /// log, meta, ids; ARGV channel, then epoch, op key, node id, payload, creates, until per op):
  /// an array of their replies.
  public static let appendOps = "reorder_append_ops"
  /// Raises a room's replicated watermark and publishes it (KEYS meta; ARGV seq, channel).
  public static let markReplicated = "reorder_replicated"
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
  /// Adds or replaces one node's sessions and beats its heartbeat (KEYS roster, nodes, version;
  /// ARGV node, expiry ms, then session, peer JSON, …).
  public static let putRoster = "reorder_roster_put"
  /// One node's heartbeat in a room: its expiry pushed back; replies 1 when the node was not
  /// listed (its sessions were expired: it puts them again) (KEYS roster, nodes, version; ARGV
  /// node, expiry ms).
  public static let beatRoster = "reorder_roster_beat"
  /// Removes sessions (KEYS roster, nodes, version; ARGV sessions…).
  public static let removeRoster = "reorder_roster_remove"
  /// Expires the nodes whose heartbeat is past, with their sessions, then replies the roster's
  /// version and, unless it is the version the caller knows, its sessions (KEYS roster, nodes,
  /// version; ARGV now ms, known version).
  public static let readRoster = "reorder_roster_read"
  /// How many sessions of nodes alive at a time the roster lists (KEYS roster, nodes; ARGV now ms).
  public static let onlineRoster = "reorder_roster_online"

  /// The library's source.
  public static let source = #"""
    #!lua name=reorder

    local function num(n) return string.format('%d', n) end

    -- Tells the nodes' tails that a room's history was rewritten (a whole-board write): a
    -- 'changed' notice on its appends channel, named after its meta key (one slot).
    local function changed(meta)
      redis.call('SPUBLISH', (string.gsub(meta, ':meta$', ':appends')), 'changed')
    end

    -- What a call appending to a room knows of it: its meta's epoch (false: none) and seq, whether
    -- it has a replicated watermark, the seqs of the op keys it looked up or appended
    -- (`known`, false for a key the log does not have), the keys it appended, in order, and the
    -- parts of the notice of its entries.
    local function room_state(meta, ids, keys)
      local fields = redis.call('HMGET', meta, 'epoch', 'seq', 'replicated')
      local room = {epoch = fields[1], seq = tonumber(fields[2]) or 0, marked = fields[3] ~= false,
        known = {}, added = {}, notices = {}}
      -- In parts: unpack passes at most a few thousand values.
      for first = 1, #keys, 500 do
        local part = {unpack(keys, first, math.min(first + 499, #keys))}
        local seqs = redis.call('HMGET', ids, unpack(part))
        for i, key in ipairs(part) do room.known[key] = seqs[i] end
      end
      return room
    end

    -- One op of reorder_append / reorder_append_ops (KEYS log, meta, ids; `room` from room_state,
    -- updated; the caller writes the keys and the seq once, with finish). Epoch: a room without meta
    -- has no history (never made, or deleted): only an op made at seq 0 (creates '1') starts one. A
    -- key the log has answers its seq, 'known'. An op beyond its until (the first compaction
    -- boundary after the state it was made on; 0: any) is refused 'STALE <until>' with nothing
    -- written (its key stays free): its node makes it again on the board compacted there. Otherwise
    -- the XADD, and the entry joins the call's notice (ClusterNotice).
    local function append_op(keys, room, epoch, key, node, payload, creates, limit)
      local log, meta = keys[1], keys[2]
      if room.epoch and room.epoch ~= epoch then
        return redis.error_reply('EPOCH ' .. room.epoch)
      end
      if not room.epoch then
        if creates == '0' then return redis.error_reply('EPOCH ') end
        redis.call('HSET', meta, 'epoch', epoch)
        room.epoch = epoch
      end
      local known = room.known[key]
      if known then
        -- A write, so that a WAIT after this call covers the op's first append too.
        redis.call('HINCRBY', meta, 'known', 1)
        return {tonumber(known), 'known'}
      end
      local seq = room.seq + 1
      limit = tonumber(limit or '0') or 0
      if limit > 0 and seq > limit then return redis.error_reply('STALE ' .. num(limit)) end
      if not room.marked then
        -- A room logged before watermarks were kept (or a new one): what it has counts as replicated.
        redis.call('HSET', meta, 'replicated', num(seq - 1))
        room.marked = true
      end
      -- A failed XADD (a log out of step with its meta) refuses this op: what the call appended
      -- before it is still written by finish, so the room's meta stays in step with its log.
      local added = redis.pcall('XADD', log, num(seq) .. '-1', 'node', node, 'key', key, 'op', payload, 'epoch', epoch)
      if type(added) == 'table' and added.err then return added end
      room.known[key] = num(seq)
      room.added[#room.added + 1] = key
      room.seq = seq
      local notices = room.notices
      notices[#notices + 1] = string.format('%d %d %d %d %d\n', seq, #epoch, #node, #key, #payload)
      notices[#notices + 1] = epoch
      notices[#notices + 1] = node
      notices[#notices + 1] = key
      notices[#notices + 1] = payload
      return {seq, 'applied'}
    end

    -- Writes what a call appended: the op keys' seqs and the room's seq; then publishes its
    -- entries on the room's appends channel, all in one notice (ClusterNotice).
    local function finish(keys, room, channel)
      if #room.added == 0 then return end
      for first = 1, #room.added, 500 do
        local fields = {}
        for i = first, math.min(first + 499, #room.added) do
          fields[#fields + 1] = room.added[i]
          fields[#fields + 1] = room.known[room.added[i]]
        end
        redis.call('HSET', keys[3], unpack(fields))
      end
      redis.call('HSET', keys[2], 'seq', num(room.seq))
      redis.call('SPUBLISH', channel, table.concat(room.notices))
    end

    -- KEYS log, meta, ids; ARGV epoch, op key, node id, payload, creates, until, the room's appends
    -- channel. One op (append_op), one atomic step.
    local function append(keys, args)
      local room = room_state(keys[2], keys[3], {args[2]})
      local reply = append_op(keys, room, args[1], args[2], args[3], args[4], args[5], args[6])
      finish(keys, room, args[7])
      return reply
    end

    -- KEYS log, meta, ids; ARGV the room's appends channel, then per op epoch, op key, node id,
    -- payload, creates, until. The ops in order, each as reorder_append appends it, in one atomic
    -- step: an array of their replies (an error element for a refused one). One call for a node's
    -- batch of a room's ops costs Redis one function call, one read of the meta and the op keys, one
    -- write of them and one notice, not one each per op.
    local function append_ops(keys, args)
      local opKeys = {}
      for i = 3, #args - 4, 6 do opKeys[#opKeys + 1] = args[i] end
      local room = room_state(keys[2], keys[3], opKeys)
      local replies = {}
      for i = 2, #args - 5, 6 do
        replies[#replies + 1] = append_op(
          keys, room, args[i], args[i + 1], args[i + 2], args[i + 3], args[i + 4], args[i + 5])
      end
      finish(keys, room, args[1])
      return replies
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
      redis.call('HSET', meta, 'epoch', epoch, 'seq', num(seq), 'snapshot_seq', num(seq), 'replicated', num(seq))
      redis.call('HSET', snap, 'seq', num(seq), 'bytes', bytes)
      redis.call('HSET', bases, num(seq), bytes)
      changed(meta)
      if had then return 'replaced' end
      return 'created'
    end

    -- KEYS meta, then every other key of the room. Deletes them all when the room has ops.
    -- Replies 1 when it did, 0 when the room had none.
    local function board_delete(keys, args)
      if (tonumber(redis.call('HGET', keys[1], 'seq')) or 0) == 0 then return 0 end
      redis.call('DEL', unpack(keys))
      changed(keys[1])
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
      local gone = {}
      for _, entry in ipairs(old) do
        local fields = entry[2]
        for i = 1, #fields, 2 do
          if fields[i] == 'key' then gone[#gone + 1] = fields[i + 1] end
        end
      end
      -- In parts: unpack passes at most a few thousand values.
      for first = 1, #gone, 500 do
        redis.call('HDEL', ids, unpack(gone, first, math.min(first + 499, #gone)))
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

    -- The rosters: sessions by node, each node alive while its heartbeat in the room is not past;
    -- the version counts changes (docs/CLUSTER.md, "Rosters").
    -- KEYS roster, nodes, version; ARGV node, expiry ms, then session, peer JSON pairs.
    local function roster_put(keys, args)
      for i = 3, #args, 2 do
        redis.call('HSET', keys[1], args[i], args[1] .. '\n' .. args[i + 1])
      end
      redis.call('ZADD', keys[2], args[2], args[1])
      redis.call('INCR', keys[3])
      return (#args - 2) / 2
    end

    -- KEYS roster, nodes, version; ARGV node, expiry ms. Replies 1 when the node was not listed.
    local function roster_beat(keys, args)
      return redis.call('ZADD', keys[2], args[2], args[1])
    end

    -- KEYS roster, nodes, version; ARGV sessions. Replies how many were listed.
    local function roster_remove(keys, args)
      local removed = 0
      for i = 1, #args do removed = removed + redis.call('HDEL', keys[1], args[i]) end
      if removed > 0 then redis.call('INCR', keys[3]) end
      return removed
    end

    -- KEYS roster, nodes, version; ARGV now ms, known version. Replies {version} when the roster
    -- is the known version, else {version, session, peer JSON, ...}.
    local function roster_read(keys, args)
      local dead = redis.call('ZRANGEBYSCORE', keys[2], '-inf', args[1])
      if #dead > 0 then
        local gone = {}
        for _, node in ipairs(dead) do
          gone[node] = true
          redis.call('ZREM', keys[2], node)
        end
        local all = redis.call('HGETALL', keys[1])
        for i = 1, #all, 2 do
          local cut = string.find(all[i + 1], '\n', 1, true)
          if cut and gone[string.sub(all[i + 1], 1, cut - 1)] then redis.call('HDEL', keys[1], all[i]) end
        end
        redis.call('INCR', keys[3])
      end
      local version = redis.call('GET', keys[3]) or '0'
      if version == args[2] then return {version} end
      local reply = {version}
      local all = redis.call('HGETALL', keys[1])
      for i = 1, #all, 2 do
        local cut = string.find(all[i + 1], '\n', 1, true)
        if cut then
          reply[#reply + 1] = all[i]
          reply[#reply + 1] = string.sub(all[i + 1], cut + 1)
        end
      end
      return reply
    end

    -- KEYS roster, nodes; ARGV now ms. Replies how many sessions of live nodes are listed.
    local function roster_online(keys, args)
      local live = {}
      for _, node in ipairs(redis.call('ZRANGEBYSCORE', keys[2], '(' .. args[1], '+inf')) do live[node] = true end
      local count = 0
      for _, value in ipairs(redis.call('HVALS', keys[1])) do
        local cut = string.find(value, '\n', 1, true)
        if cut and live[string.sub(value, 1, cut - 1)] then count = count + 1 end
      end
      return count
    end

    -- KEYS meta; ARGV seq, the room's appends channel. Raises the room's replicated watermark to
    -- seq (never lowers it) and publishes 'replicated <seq>' on the channel. Replies the watermark.
    local function replicated(keys, args)
      local mark = tonumber(redis.call('HGET', keys[1], 'replicated')) or 0
      local seq = tonumber(args[1])
      if seq > mark then
        mark = seq
        redis.call('HSET', keys[1], 'replicated', num(seq))
        redis.call('SPUBLISH', args[2], 'replicated ' .. num(seq))
      end
      return mark
    end

    redis.register_function('reorder_append', append)
    redis.register_function('reorder_append_ops', append_ops)
    redis.register_function('reorder_replicated', replicated)
    redis.register_function('reorder_board_put', board_put)
    redis.register_function('reorder_board_delete', board_delete)
    redis.register_function('reorder_trim', trim)
    redis.register_function('reorder_snapshot', snapshot)
    redis.register_function('reorder_lease_acquire', lease_acquire)
    redis.register_function('reorder_lease_renew', lease_renew)
    redis.register_function('reorder_lease_release', lease_release)
    redis.register_function('reorder_roster_put', roster_put)
    redis.register_function('reorder_roster_beat', roster_beat)
    redis.register_function('reorder_roster_remove', roster_remove)
    redis.register_function('reorder_roster_read', roster_read)
    redis.register_function{function_name = 'reorder_roster_online', callback = roster_online, flags = {'no-writes'}}
    """#
}
