/// The Lua scripts (`EVAL`) of the room commands that are not functions of the library.
public enum ClusterScripts {
  /// KEYS meta, summary; ARGV epoch, seq, lists, items, updated_at. Replies
  /// `{stored, epoch, seq, lists, items, updated_at}` with the fields stored before (nil when
  /// none); `stored` is 1 when stored, 0 when a summary as recent is there, -1 when the room was
  /// deleted or replaced.
  public static let putSummary = """
    local before = redis.call('HMGET', KEYS[2], 'epoch', 'seq', 'lists', 'items', 'updated_at')
    local function reply(stored) return {stored, before[1], before[2], before[3], before[4], before[5]} end
    local epoch = redis.call('HGET', KEYS[1], 'epoch')
    if not epoch or epoch ~= ARGV[1] then return reply(-1) end
    if before[1] == ARGV[1] and tonumber(before[2]) >= tonumber(ARGV[2]) then return reply(0) end
    redis.call('HSET', KEYS[2], 'epoch', ARGV[1], 'seq', ARGV[2], 'lists', ARGV[3], 'items', ARGV[4],
      'updated_at', ARGV[5])
    return reply(1)
    """

  /// KEYS log, meta, ids, snapshot, summary; ARGV epoch, replace, node, seq, trimmed seq,
  /// snapshot seq (0: none), snapshot bytes, then seq, op key, payload triples. A script rather
  /// than a function of the `reorder` library, so that a Redis that never ran a node takes it too.
  public static let putRoomCopy = """
    local function num(n) return string.format('%d', n) end
    local had = (tonumber(redis.call('HGET', KEYS[2], 'seq')) or 0) > 0
    if had and ARGV[2] ~= '1' then return 'exists' end
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
    for i = 8, #ARGV - 2, 3 do
      redis.call('XADD', KEYS[1], ARGV[i] .. '-1', 'node', ARGV[3], 'key', ARGV[i + 1], 'op', ARGV[i + 2],
        'epoch', ARGV[1])
      redis.call('HSET', KEYS[3], ARGV[i + 1], ARGV[i])
    end
    redis.call('HSET', KEYS[2], 'epoch', ARGV[1], 'seq', ARGV[4], 'trimmed_seq', ARGV[5], 'snapshot_seq', ARGV[6],
      'replicated', ARGV[4])
    if tonumber(ARGV[6]) > 0 then redis.call('HSET', KEYS[4], 'seq', ARGV[6], 'bytes', ARGV[7]) end
    redis.call('SPUBLISH', (string.gsub(KEYS[2], ':meta$', ':appends')), 'changed')
    if had then return 'replaced' end
    return 'created'
    """
}
