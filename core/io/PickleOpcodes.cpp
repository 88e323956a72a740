#include "PickleOpcodes.h"

namespace vs::pickle {

const char* opcodeName(uint8_t o) {
    switch (o) {
    case op::MARK:
        return "MARK";
    case op::STOP:
        return "STOP";
    case op::POP:
        return "POP";
    case op::POP_MARK:
        return "POP_MARK";
    case op::DUP:
        return "DUP";
    case op::FLOAT:
        return "FLOAT";
    case op::INT:
        return "INT";
    case op::LONG:
        return "LONG";
    case op::PERSID:
        return "PERSID";
    case op::BINPERSID:
        return "BINPERSID";
    case op::REDUCE:
        return "REDUCE";
    case op::STRING:
        return "STRING";
    case op::BINSTRING:
        return "BINSTRING";
    case op::SHORT_BINSTRING:
        return "SHORT_BINSTRING";
    case op::UNICODE:
        return "UNICODE";
    case op::BUILD:
        return "BUILD";
    case op::GLOBAL:
        return "GLOBAL";
    case op::GET:
        return "GET";
    case op::INST:
        return "INST";
    case op::OBJ:
        return "OBJ";
    case op::PUT:
        return "PUT";
    case op::NEWOBJ:
        return "NEWOBJ";
    case op::EXT1:
        return "EXT1";
    case op::EXT2:
        return "EXT2";
    case op::EXT4:
        return "EXT4";
    case op::BINBYTES:
        return "BINBYTES";
    case op::SHORT_BINBYTES:
        return "SHORT_BINBYTES";
    case op::BINBYTES8:
        return "BINBYTES8";
    case op::EMPTY_SET:
        return "EMPTY_SET";
    case op::ADDITEMS:
        return "ADDITEMS";
    case op::FROZENSET:
        return "FROZENSET";
    case op::NEWOBJ_EX:
        return "NEWOBJ_EX";
    case op::STACK_GLOBAL:
        return "STACK_GLOBAL";
    case op::BYTEARRAY8:
        return "BYTEARRAY8";
    case op::NEXT_BUFFER:
        return "NEXT_BUFFER";
    case op::READONLY_BUFFER:
        return "READONLY_BUFFER";
    default:
        return "not a pickle opcode";
    }
}

bool isCodeExecutingOpcode(uint8_t o) {
    switch (o) {
    case op::GLOBAL:
    case op::STACK_GLOBAL:
    case op::REDUCE:
    case op::BUILD:
    case op::INST:
    case op::OBJ:
    case op::NEWOBJ:
    case op::NEWOBJ_EX:
    case op::PERSID:
    case op::BINPERSID:
    case op::EXT1:
    case op::EXT2:
    case op::EXT4:
        return true;
    default:
        return false;
    }
}

} // namespace vs::pickle
