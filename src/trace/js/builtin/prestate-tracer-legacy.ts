/**
 * `prestateTracerLegacy`: every account and storage slot the transaction touches, as it was
 * before the transaction (the JavaScript prestate tracer geth shipped before its native one).
 * Accounts are read when first touched; the sender and recipient are read at the end and the
 * transaction's own effects on them (value, fee, nonce) are undone.
 */
export const PRESTATE_TRACER_LEGACY = String.raw`{
  accounts: {},
  seenRecipient: false,

  remember: function (address, db) {
    var key = toHex(address);
    if (this.accounts[key] !== undefined) return;
    this.accounts[key] = {
      balance: '0x' + db.getBalance(address).toString(16),
      nonce: db.getNonce(address),
      code: toHex(db.getCode(address)),
      storage: {},
    };
  },

  rememberSlot: function (address, slot, db) {
    this.remember(address, db);
    var storage = this.accounts[toHex(address)].storage;
    var key = toHex(slot);
    if (storage[key] === undefined) storage[key] = toHex(db.getState(address, slot));
  },

  step: function (log, db) {
    if (!this.seenRecipient) { this.seenRecipient = true; this.remember(log.contract.getAddress(), db); }
    switch (log.op.toString()) {
      case 'BALANCE': case 'EXTCODESIZE': case 'EXTCODECOPY': case 'EXTCODEHASH':
        this.remember(toAddress(log.stack.peek(0).toString(16)), db);
        break;
      case 'CALL': case 'CALLCODE': case 'DELEGATECALL': case 'STATICCALL':
        this.remember(toAddress(log.stack.peek(1).toString(16)), db);
        break;
      case 'CREATE':
        var creator = log.contract.getAddress();
        this.remember(toContract(creator, db.getNonce(creator)), db);
        break;
      case 'CREATE2':
        var start = log.stack.peek(1).valueOf(), size = log.stack.peek(2).valueOf();
        var initcode = log.memory.slice(start, start + size);
        this.remember(toContract2(log.contract.getAddress(), log.stack.peek(3).toString(16), initcode), db);
        break;
      case 'SLOAD': case 'SSTORE':
        this.rememberSlot(log.contract.getAddress(), toWord(log.stack.peek(0).toString(16)), db);
        break;
    }
  },

  fault: function (log, db) {},

  result: function (ctx, db) {
    var from = toHex(ctx.from), to = toHex(ctx.to);
    var transferred = ctx.error === undefined ? ctx.value : bigInt.zero;
    this.remember(ctx.to, db);
    var recipient = this.accounts[to];
    recipient.balance = '0x' + bigInt(recipient.balance.slice(2), 16).subtract(transferred).toString(16);
    var fee = bigInt(ctx.gasUsed).multiply(ctx.gasPrice);
    var sender = this.accounts[from];
    if (sender === undefined) { this.remember(ctx.from, db); sender = this.accounts[from]; }
    sender.balance = '0x' + db.getBalance(ctx.from).add(transferred).add(fee).toString(16);
    sender.nonce = db.getNonce(ctx.from) - 1;
    if (ctx.type === 'CREATE') delete this.accounts[to];
    return this.accounts;
  },
}`;
